"""Codex plugins: ``.codex-plugin/plugin.json`` + ``skills/``, ``.mcp.json``, ``.app.json``,
hooks (docs/codex-plugins.md)."""

from adapters.codex.adapter import ECOSYSTEM, CodexAdapter

__all__ = ["ECOSYSTEM", "CodexAdapter"]
