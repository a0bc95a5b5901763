"""nanobot: the strict ``nanobot.extension.json`` manifest, its adapter and its runtime
(the Python sidecar in ``adapters.nanobot.sidecar``, which imports nothing of this)."""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.nanobot.adapter import NanobotAdapter
    from adapters.nanobot.manifest import NanobotManifest, dump_manifest, load_manifest

_WHERE = {
    "NanobotAdapter": "adapters.nanobot.adapter",
    "NanobotManifest": "adapters.nanobot.manifest",
    "dump_manifest": "adapters.nanobot.manifest",
    "load_manifest": "adapters.nanobot.manifest",
}

__all__ = [
    "NanobotAdapter",
    "NanobotManifest",
    "dump_manifest",
    "load_manifest",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
