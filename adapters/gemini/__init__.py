"""Gemini CLI extensions: ``gemini-extension.json`` + context files, ``skills/``,
``commands/*.toml`` (docs/gemini-extensions.md)."""

from adapters.gemini._commands import command_name, expand
from adapters.gemini._inspect import hydrate
from adapters.gemini.adapter import ECOSYSTEM, GeminiAdapter

__all__ = ["ECOSYSTEM", "GeminiAdapter", "command_name", "expand", "hydrate"]
