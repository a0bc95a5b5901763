"""``gateway serve``: the packages behind a gateway, offered to other hosts.

- ``serve_mcp``: an MCP server over stdio (tools, prompts, resources; docs/serve.md);
- ``serve_mcp_http``: the same over MCP's streamable HTTP, many clients behind bearer
  tokens (``TokenStore``, ``gateway token``) and, optionally, an OAuth 2.1 issuer's
  access tokens (``OAuthSettings``);
- ``serve_nimlet``: one nimlet extension over stdio whose ``register`` lists every tool,
  command and event of the packages behind it;
- ``defer_package_inits``: for a process whose whole program is an MCP server (the CLI's
  ``gateway serve --mcp``), the MCP SDK's server modules without its client.

Both open the gateway the same way (``ServeOptions``): the gates apply as for the CLI,
what installed packages offer is listed from the registration cache while every runtime
starts in the background and then stays warm, diagnostics go to stderr.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.serve._audit import AUDIT_LOG
    from gateway.serve._http_run import serve_mcp_http
    from gateway.serve._mcp_names import MCP_TOOL_NAME
    from gateway.serve._oauth import OAuthSettings
    from gateway.serve._open import ServeError, ServeOptions, open_served
    from gateway.serve._report import stderr_reporter
    from gateway.serve._run import serve_mcp, serve_nimlet
    from gateway.serve._sdk_packages import defer_package_inits
    from gateway.serve._search_options import ToolSearchOptions
    from gateway.serve._tokens import TokenError, TokenRecord, TokenStore, parse_duration
    from gateway.serve._tool_search import listed_tools

_WHERE: dict[str, str] = {
    "AUDIT_LOG": "gateway.serve._audit",
    "parse_duration": "gateway.serve._tokens",
    "MCP_TOOL_NAME": "gateway.serve._mcp_names",
    "OAuthSettings": "gateway.serve._oauth",
    "ServeError": "gateway.serve._open",
    "ServeOptions": "gateway.serve._open",
    "open_served": "gateway.serve._open",
    "serve_mcp": "gateway.serve._run",
    "serve_mcp_http": "gateway.serve._http_run",
    "TokenError": "gateway.serve._tokens",
    "TokenRecord": "gateway.serve._tokens",
    "TokenStore": "gateway.serve._tokens",
    "ToolSearchOptions": "gateway.serve._search_options",
    "listed_tools": "gateway.serve._tool_search",
    "serve_nimlet": "gateway.serve._run",
    "defer_package_inits": "gateway.serve._sdk_packages",
    "stderr_reporter": "gateway.serve._report",
}

__all__ = [
    "AUDIT_LOG",
    "MCP_TOOL_NAME",
    "OAuthSettings",
    "ServeError",
    "ServeOptions",
    "TokenError",
    "TokenRecord",
    "TokenStore",
    "ToolSearchOptions",
    "defer_package_inits",
    "listed_tools",
    "open_served",
    "parse_duration",
    "serve_mcp",
    "serve_mcp_http",
    "serve_nimlet",
    "stderr_reporter",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
