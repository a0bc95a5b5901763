"""The diagnostic codes of resource limits, network grants by destination and protected
names. The sandbox's other codes are the core's (``gateway/base/_codes.py``);
``docs/diagnostics.md`` documents each one."""

from __future__ import annotations

from gateway.base import Severity, define_code

LIMIT_EXCEEDED = define_code(
    "sandbox.limit_exceeded",
    Severity.WARNING,
    "A package's process went over one of its resource limits: memory (killed by the "
    "kernel's OOM killer in its cgroup, or an allocation refused), processes (a fork or a "
    "thread refused), or file size (a write past it). The message names the package and the "
    "limit; that process failed or was killed, the gateway and every other package carry on.",
    "If the package really needs more, raise that limit: `gateway config ID "
    "'$gateway.limits.memory' 4G` (also `pids`, `file_size`, `cpu_weight`; docs/security.md); "
    "otherwise nothing to do — the limit did its job.",
)
LIMITS_INVALID = define_code(
    "sandbox.limits_invalid",
    Severity.WARNING,
    "A package's `$gateway.limits` setting cannot be used (not a size, a number out of "
    "range, an unknown limit); that limit keeps its default.",
    "Fix it with `gateway config ID '$gateway.limits.KEY' VALUE` (sizes such as `512M`, "
    "`2G` or `off`), or remove it with `--unset`.",
)
NETWORK_DENIED = define_code(
    "sandbox.network_denied",
    Severity.WARNING,
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
    Severity.WARNING,
    "The user's own proxy setting (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`) cannot be used "
    "by the gateway's egress proxy (a scheme other than http:// or https://, or no host); "
    "connections of packages granted network by destination go out directly instead.",
    "Set an http:// or https:// proxy URL, or unset the variable.",
)
NAME_PROTECTED = define_code(
    "sandbox.name_protected",
    Severity.WARNING,
    "A package with `workspace.write` tried to create, rename, link or write a protected name "
    "in the workspace (`.git`, `.envrc`, `.vscode`, `Makefile`, … at any depth: what other "
    "programs run or trust), or to add or change the `scripts` of a `package.json` (run by "
    "the user's next `npm install` or `npm test`); the call was refused (EACCES) or the "
    "`package.json` left as it was. The message names the path.",
    "If the package really must write it, read its code first; `gateway permissions ID "
    "workspace.write:PATH` reopens one protected path by name.",
)
