"""``gateway serve``: the packages behind a gateway, offered to other hosts.

- ``serve_mcp``: an MCP server over stdio (tools, prompts, resources; docs/serve.md);
- ``serve_nimlet``: one nimlet extension over stdio whose ``register`` lists every tool,
  command and event of the packages behind it.

Both open the gateway the same way (``ServeOptions``): the gates apply as for the CLI,
every runtime starts at once and stays warm, diagnostics go to stderr.
"""

from __future__ import annotations

from gateway.serve._open import ServeError, ServeOptions, open_served, stderr_reporter
from gateway.serve._run import serve_mcp, serve_nimlet

__all__ = [
    "ServeError",
    "ServeOptions",
    "open_served",
    "serve_mcp",
    "serve_nimlet",
    "stderr_reporter",
]
