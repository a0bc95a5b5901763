"""nimlet: ``extension.json`` extensions, ``tool.json`` tools, skills and prompts."""

from __future__ import annotations

from adapters.nimlet.adapter import NimletAdapter

__all__ = ["NimletAdapter"]
