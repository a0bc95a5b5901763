"""Codex plugins: ``.codex-plugin/plugin.json`` + ``skills/``, ``.mcp.json``, ``.app.json``,
hooks (docs/codex-plugins.md)."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.codex.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.codex.adapter import CodexAdapter as CodexAdapter

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
