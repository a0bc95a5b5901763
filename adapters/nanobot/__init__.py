"""nanobot: the strict ``nanobot.extension.json`` manifest and its adapter."""

from __future__ import annotations

from adapters.nanobot.adapter import NanobotAdapter
from adapters.nanobot.manifest import NanobotManifest, dump_manifest, load_manifest

__all__ = ["NanobotAdapter", "NanobotManifest", "dump_manifest", "load_manifest"]
