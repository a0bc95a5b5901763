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

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.serve._audit import AUDIT_LOG as AUDIT_LOG
    from gateway.serve._http_run import serve_mcp_http as serve_mcp_http
    from gateway.serve._mcp_names import MCP_TOOL_NAME as MCP_TOOL_NAME
    from gateway.serve._oauth import OAuthSettings as OAuthSettings
    from gateway.serve._open import ServeError as ServeError
    from gateway.serve._open import ServeOptions as ServeOptions
    from gateway.serve._open import open_served as open_served
    from gateway.serve._report import stderr_reporter as stderr_reporter
    from gateway.serve._run import serve_mcp as serve_mcp
    from gateway.serve._run import serve_nimlet as serve_nimlet
    from gateway.serve._sdk_packages import defer_package_inits as defer_package_inits
    from gateway.serve._search_options import ToolSearchOptions as ToolSearchOptions
    from gateway.serve._tokens import TokenError as TokenError
    from gateway.serve._tokens import TokenRecord as TokenRecord
    from gateway.serve._tokens import TokenStore as TokenStore
    from gateway.serve._tokens import parse_duration as parse_duration
    from gateway.serve._tool_search import listed_tools as listed_tools


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
