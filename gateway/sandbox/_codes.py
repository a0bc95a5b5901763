"""The diagnostic codes of confinement: what the kernel cannot enforce, what the sandbox
refused, resource limits a package went over, and grants its sources suggest it needs.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Resource limits
LIMIT_EXCEEDED = define_code(
    "sandbox.limit_exceeded",
    W,
    "A package's process went over one of its resource limits: memory (killed by the "
    "kernel's OOM killer in its cgroup, or an allocation refused), processes (a fork or a "
    "thread refused), or file size (a write past it). The message names the package and the "
    "limit; that process failed or was killed, the gateway and every other package carry on.",
    "If the package really needs more, raise that limit: `gateway config ID "
    "'$gateway.limits.memory' 4G` (also `pids`, `file_size`, `cpu_weight`; docs/security.md); "
    "otherwise nothing to do — the limit did its job.",
)

# What a package's sources suggest it needs
INSTALL_NEEDS_GRANT = define_code(
    "install.needs_grant",
    I,
    "A package's code appears (by a text scan of its own sources) to use something its "
    "sandbox denies by default — network, writing the workspace, reading the user's home; "
    "the message shows where.",
    "Grant it knowingly with the command in the hint, or leave it denied.",
)

# What the kernel enforces and what it refused
SANDBOX_UNAVAILABLE = define_code(
    "sandbox.unavailable",
    W,
    "The kernel cannot confine the processes the gateway starts (no Landlock: another OS, "
    "a Linux before 5.13, or Landlock not enabled at boot). They run with the fallback "
    "checks only: no capabilities, no_new_privs, and the seccomp socket filter where "
    "available. Reported once per run.",
    "Use Linux 6.12 or later with Landlock enabled (`lsm=…,landlock` on the kernel command "
    "line); set GATEWAY_REQUIRE_SANDBOX=1 to refuse to run anything unconfined.",
)
SANDBOX_PARTIAL = define_code(
    "sandbox.partial",
    I,
    "The kernel's Landlock is older than the gateway's sandbox needs: the message names "
    "what is not enforced (TCP port rules need ABI 4, scoping of signals and abstract "
    "sockets ABI 6). Reported once per run.",
    "Use a newer kernel; set GATEWAY_REQUIRE_SANDBOX=1 to refuse to run what cannot be "
    "confined fully.",
)
SANDBOX_DENIED = define_code(
    "sandbox.denied",
    W,
    "A confined package printed an error showing the sandbox refused it something (an open, "
    "a connect, a socket); the message names the grant that would allow it, where one "
    "exists.",
    "If the package should do it, grant what the hint names (`gateway permissions ID "
    "PERM`); otherwise nothing to do — the sandbox did its job.",
)
PROTECTED_NAME = define_code(
    "sandbox.protected_name",
    W,
    "A package granted `workspace.write` tried to make, change, move or remove a protected "
    "name (`.git`, `.envrc`, `.vscode`, `package.json`, `Makefile`, … — docs/security.md) "
    "somewhere in the workspace, at any depth, whether it existed or not; or to make a "
    "symlink in the workspace pointing outside it. The call failed (EROFS, as for a protected "
    "path that exists; EACCES for the link); nothing was written. The message names the path.",
    "If the package should write there, reopen that path by name: `gateway permissions ID "
    "workspace.write:PATH` (the hint shows it); otherwise nothing to do — the sandbox did "
    "its job.",
)
NO_NETWORK_GRANT = define_code(
    "sandbox.no_network_grant",
    W,
    "A tool of a confined package failed — an error result, a result whose first line says "
    "an error (`Error: …`, as tools that return their failure as text do), or a failed call — "
    "and its text shows a failure to resolve or reach a host that its sandbox causes "
    "(`EAI_AGAIN`, `ENOTFOUND`, `getaddrinfo`, `Temporary failure in name resolution`, "
    "`ENETUNREACH`, a connect refused by the sandbox or by the gateway's proxy), while the "
    "package has no network grant, or none for the host the text names. The tool's result is "
    "left as it was; this says why and names the grant. Not said when the package has the "
    "network (the failure is then the network's own).",
    "If the package should reach the network, grant it with the command in the hint "
    "(`gateway permissions ID network`, or `network:HOST` for one host, through the "
    "gateway's proxy); otherwise nothing to do — the sandbox did its job.",
)
SANDBOX_REFUSED = define_code(
    "sandbox.refused",
    E,
    "A process was not started: the gateway is configured to require the sandbox "
    "(GATEWAY_REQUIRE_SANDBOX=1 or GatewayConfig.require_sandbox) and this kernel cannot "
    "enforce all of its policy; the message names what is missing.",
    "Run on a kernel with Landlock ABI 6 or later, or unset GATEWAY_REQUIRE_SANDBOX.",
)

# Network grants by destination (the egress proxy)
NETWORK_DENIED = define_code(
    "sandbox.network_denied",
    W,
    "A package granted network access by destination (`network:HOST[:PORT]`) asked the "
    "gateway's egress proxy for a host (or port) none of its grants names — by the CONNECT "
    "target, the TLS server name of the connection, or a plain HTTP request's host — or for "
    "a granted name that resolves to a loopback or link-local address; the connection was "
    "refused (HTTP 403 to the package). The message names the host.",
    "If the package should reach that host, grant it by name: `gateway permissions ID "
    "network:HOST` (or `network:*.DOMAIN` for its subdomains); otherwise nothing to do — the "
    "sandbox did its job.",
)
EGRESS_UPSTREAM = define_code(
    "sandbox.egress_upstream",
    W,
    "The user's own proxy setting (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`) cannot be used "
    "by the gateway's egress proxy (a scheme other than http:// or https://, or no host); "
    "connections of packages granted network by destination go out directly instead.",
    "Set an http:// or https:// proxy URL, or unset the variable.",
)
