"""``gateway migrate PKG --to TARGET --out DIR``: a package the gateway runs, made runnable
by another host.

Targets (docs/migrate.md): ``nimlet`` (an ``extension.json`` running ``gateway serve
--nimlet``, skills and prompt templates where nimlet finds them), ``mcp`` (the
``mcpServers`` entry MCP clients read), ``agent-plugin`` (an Agent Plugins 1.0 package whose
MCP server is ``gateway serve --mcp``), ``nanobot`` (that Agent Plugin, with the steps that
install and enable it in released nanobot), ``nanobot-manifest`` (the package's files with
the unreleased ``nanobot.extension.json``). Every migration writes ``MIGRATION.md``.
Nothing runs unless ``load`` is set, and then only in the throwaway sandbox
(``_throwaway``).
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.migrate._migrate import TARGETS as TARGETS
    from gateway.migrate._migrate import MigrationError as MigrationError
    from gateway.migrate._migrate import default_gateway_command as default_gateway_command
    from gateway.migrate._migrate import migrate as migrate
    from gateway.migrate._model import Migration as Migration

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
