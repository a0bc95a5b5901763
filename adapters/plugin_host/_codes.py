"""The diagnostic codes of remote MCP servers (``remote_mcp.*``): read by the adapters,
connected by the plugin host. ``docs/diagnostics.md``
documents each one."""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

REMOTE_NOT_GRANTED = define_code(
    "remote_mcp.not_granted",
    W,
    "A remote MCP server is not connected: the package's sandbox has no network grant for it "
    "(each server's host and port is an optional permission, `network:HOST:PORT`).",
    "Grant it: `gateway permissions ID network:HOST:PORT` (the hint names it); the package's "
    "other contributions run meanwhile.",
)
REMOTE_SIGN_IN_REQUIRED = define_code(
    "remote_mcp.sign_in_required",
    W,
    "A remote MCP server answers 401 and no sign-in can be used: none was made, the refresh "
    "token was refused (revoked or expired), or the sign-in was made for another URL. Its "
    "tools stay listed and each call says so; none is run.",
    "Sign in: `gateway auth ID` (it opens or prints the authorization URL and waits on a "
    "loopback redirect); a running gateway restarts the package when it is done.",
)
REMOTE_REFRESH_FAILED = define_code(
    "remote_mcp.refresh_failed",
    W,
    "Refreshing a remote MCP server's access token failed for a reason other than a refusal "
    "(the authorization server unreachable, an error page, a malformed answer); the current "
    "token is used while it lasts, and the refresh is tried again at the next use.",
    "Check that the authorization server is reachable from the package's sandbox (its "
    "network grant names the MCP server's host; a token endpoint elsewhere needs its own).",
)
REMOTE_UNREACHABLE = define_code(
    "remote_mcp.unreachable",
    W,
    "A remote MCP server could not be connected (name resolution, a refused connection, TLS, "
    "no MCP answer within the start timeout, an HTTP error); its tools are not offered.",
    "Check the URL and that the server is up; `gateway logs ID` has the plugin host's view.",
)
REMOTE_HEADER_UNSET = define_code(
    "remote_mcp.header_unset",
    W,
    "A header of a remote MCP server names a variable (`${NAME}`) that has no value: no "
    "secret of that name, no `env:NAME` grant, no `${NAME:-default}`; the server is not "
    "connected (a header sent empty would fail later and less clearly).",
    "Set it: `gateway secret set ID NAME` (or grant the variable: `gateway permissions ID "
    "env:NAME`).",
)
REMOTE_TRANSPORT_UNSUPPORTED = define_code(
    "remote_mcp.transport_unsupported",
    W,
    "A remote MCP server entry names a transport the plugin host does not speak (Claude "
    "Code's `ws`); it is listed, never connected.",
    "Use the server's streamable HTTP or SSE endpoint if it has one.",
)
REMOTE_FIELD_IGNORED = define_code(
    "remote_mcp.field_ignored",
    I,
    "A field of a remote MCP server entry is read but not applied: `headersHelper` (a command "
    "Claude Code runs for headers), `oauth.scopes` and `oauth.authServerMetadataUrl` (the "
    "MCP SDK's OAuth client discovers the authorization server and chooses scopes itself).",
    "Nothing to fix; put static headers in `headers` (with `${NAME}` for secrets).",
)
REMOTE_SCOPE_INSUFFICIENT = define_code(
    "remote_mcp.scope_insufficient",
    W,
    "A remote MCP server answers 403 `insufficient_scope`: the sign-in was granted fewer "
    "scopes than the server needs. The server's calls are held back (each says so); the "
    "plugin host never widens a sign-in by itself.",
    "Sign in again: `gateway auth ID` (the authorization server is asked for the scopes the "
    "server names); if it refuses them, the account lacks access.",
)
REMOTE_SIGN_IN_FAILED = define_code(
    "remote_mcp.sign_in_failed",
    E,
    "`gateway auth` did not complete: the authorization server refused the request (e.g. "
    "`invalid_scope`, `access_denied`), no redirect came back in time, its metadata or "
    "client registration failed, or the tokens could not be kept. Nothing was kept; an "
    "earlier sign-in stays as it was.",
    "Read the reason in the message; run `gateway auth ID` again once it is fixed.",
)
