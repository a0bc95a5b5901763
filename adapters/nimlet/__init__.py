"""nimlet: ``extension.json`` extensions, ``tool.json`` tools, skills and prompts."""

from __future__ import annotations

from adapters.nimlet.adapter import ECOSYSTEM, NimletAdapter

__all__ = ["ECOSYSTEM", "NimletAdapter"]
