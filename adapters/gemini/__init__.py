"""Gemini CLI extensions: ``gemini-extension.json`` + context files, ``skills/``,
``commands/*.toml`` (docs/gemini-extensions.md)."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.gemini._commands import command_name as command_name
    from adapters.gemini._commands import expand as expand
    from adapters.gemini._inspect import hydrate as hydrate
    from adapters.gemini.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.gemini.adapter import GeminiAdapter as GeminiAdapter

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
