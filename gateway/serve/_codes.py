"""The diagnostic codes of ``gateway serve``. ``docs/diagnostics.md`` documents each one."""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

SERVE_PACKAGE_UNKNOWN = define_code(
    "serve.package_unknown",
    E,
    "`gateway serve --package ID` names a package that is not installed in this gateway home.",
    "Install it (`gateway install`), or check the id with `gateway status` and the home with "
    "`--home` / `GATEWAY_HOME`.",
)
SERVE_PACKAGE_INACTIVE = define_code(
    "serve.package_inactive",
    W,
    "A package `gateway serve --package` names is installed but not active (a gate is not "
    "passed, or its runtime is unavailable), so it offers nothing.",
    "Pass its gates: `gateway permissions ID PERM…`, `gateway trust ID`, `gateway enable ID` "
    "(`gateway status` says which is missing).",
)
SERVE_NESTED_TOO_DEEP = define_code(
    "serve.nested_too_deep",
    E,
    "`gateway serve` was started by a gateway that was itself started by `gateway serve`, "
    "more levels deep than allowed (a workspace whose extension serves that same workspace).",
    "Give the served gateway its own `--workspace`, or name its packages with `--package`.",
)
SERVE_NOT_CARRIED = define_code(
    "serve.not_carried",
    I,
    "Something the packages behind `gateway serve` offer has no equivalent in the protocol "
    "it serves (an event beyond nimlet's, a tool registered after start under a plain nimlet "
    "host, a message a plain v1 host cannot take); it is left out and named.",
    "Nothing to fix in the package; see docs/serve.md for what each protocol carries.",
)
SERVE_TOOL_NAME = define_code(
    "serve.tool_name",
    W,
    "A tool's name does not fit the MCP tool-name rules (1-128 of `A-Z a-z 0-9 _ - .`): it is "
    "offered under a name that does (the characters MCP forbids become `_`, then `-` and 8 "
    "hex digits of the name's SHA-256), and calls of that name reach the tool; a tool whose "
    "offered name another tool already has is left out.",
    "Rename the tool in its package to keep its name in MCP clients.",
)
SERVE_CLIENT_FAILED = define_code(
    "serve.client_failed",
    W,
    "The host in front of `gateway serve --nimlet` sent a line that is not a message of the "
    "nimlet protocol, or a request the gateway cannot route; it is answered with an error or "
    "ignored.",
    "Check the host; the gateway keeps serving.",
)
