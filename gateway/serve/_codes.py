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
SERVE_META_TOOL_RENAMED = define_code(
    "serve.meta_tool_renamed",
    I,
    "Tool search is on and a tool the server offers is itself called `search_tools` or "
    "`call_tool`: the real tool keeps its name, and the meta-tool is offered as "
    "`gateway_search_tools` / `gateway_call_tool` (then `…_2`, `…_3`).",
    "Nothing to fix; clients see the meta-tools' names in `tools/list`.",
)
SERVE_CLIENT_FAILED = define_code(
    "serve.client_failed",
    W,
    "The host in front of `gateway serve --nimlet` sent a line that is not a message of the "
    "nimlet protocol, or a request the gateway cannot route; it is answered with an error or "
    "ignored.",
    "Check the host; the gateway keeps serving.",
)
SERVE_HTTP_ADDRESS = define_code(
    "serve.http_address",
    E,
    "`gateway serve --mcp --http` was given an address it cannot listen on: not `[HOST:]PORT`, "
    "a port outside 0-65535, or a host and port it cannot bind (in use, not this machine's, "
    "or a privileged port).",
    "Give a free port (`--http 8765`, or `127.0.0.1:0` for any free one) and a local address.",
)
SERVE_TOKEN_INVALID = define_code(
    "serve.token_invalid",
    E,
    "`gateway token create` was given a name that is not 1-64 of `A-Z a-z 0-9 _ . -`, or an "
    "`--expires` that is not a duration (a number and s, m, h, d or w; at most ten years).",
    "Name the token like `ci-bot` and give `--expires 30d`.",
)
SERVE_TOKEN_EXISTS = define_code(
    "serve.token_exists",
    E,
    "`gateway token create NAME` names a token that exists already; a token is never "
    "replaced silently.",
    "Revoke it first (`gateway token revoke NAME`) or choose another name.",
)
SERVE_TOKEN_UNKNOWN = define_code(
    "serve.token_unknown",
    E,
    "`gateway token revoke NAME` names no token.",
    "`gateway token list` names every token.",
)
SERVE_TOKENS_UNREADABLE = define_code(
    "serve.tokens_unreadable",
    E,
    "`GATEWAY_HOME/tokens.json` cannot be read or is not the gateway's token file; no token "
    "is accepted until it is fixed.",
    "Fix or remove the file, then make new tokens with `gateway token create`.",
)
SERVE_OAUTH_UNAVAILABLE = define_code(
    "serve.oauth_unavailable",
    E,
    "`gateway serve --http --oauth-issuer URL` could not find the issuer's key set: no "
    "`--oauth-jwks` was given and neither `/.well-known/oauth-authorization-server` nor "
    "`/.well-known/openid-configuration` under the issuer answered with a `jwks_uri`. The "
    "server does not start.",
    "Give the key set's address with `--oauth-jwks URL`, or check the issuer URL (and the "
    "proxy and CA settings: `HTTPS_PROXY`, `SSL_CERT_FILE`).",
)
SERVE_SESSIONS_PER_TOKEN = define_code(
    "serve.sessions_per_token",
    W,
    "`serve --mcp --http`: a token (an OAuth user) asked for a new MCP session while it "
    "already holds as many open sessions as one token may (`MAX_SESSIONS_PER_TOKEN`); it is "
    "refused with 429, and the other tokens keep their share of the server's sessions.",
    "End sessions the client no longer uses (HTTP DELETE on /mcp), or give each client its "
    "own token.",
)

SERVE_TELEMETRY_UNAVAILABLE = define_code(
    "serve.telemetry_unavailable",
    W,
    "The `OTEL_*` variables ask `gateway serve` for OpenTelemetry traces or metrics, but they "
    "cannot be had: OpenTelemetry's SDK or its OTLP exporter is not installed, or the protocol "
    "asked for is not OTLP over HTTP (`http/protobuf`). The server runs without them.",
    "Install the extra (`pip install 'extension-gateway[otel]'`) and export to the "
    "collector's OTLP/HTTP port (4318) with `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`.",
)
SERVE_METRICS_ADDRESS = define_code(
    "serve.metrics_address",
    E,
    "`gateway serve --metrics` was given something that is neither `token` nor an address it "
    "can listen on (`[HOST:]PORT`, a free port, a local address).",
    "Give `--metrics 127.0.0.1:9464` (its own listener) or `--metrics token` (`/metrics` on the "
    "`--http` address, for tokens made with `gateway token create NAME --metrics`).",
)
SERVE_SYNC_FAILED = define_code(
    "serve.sync_failed",
    W,
    "`gateway serve --lockfile FILE` saw FILE change, but `gateway sync --frozen --accept` of it "
    "failed or did not run (a package that cannot be fetched, a hash that does not match, a "
    "lockfile that does not parse). The server keeps serving the packages it had.",
    "Run `gateway sync --frozen --lockfile FILE` against the same home to see why; fix the "
    "lockfile (or what it points at) and write it again.",
)
