"""nanobot: the strict ``nanobot.extension.json`` manifest, its adapter and its runtime
(the Python sidecar in ``adapters.nanobot.sidecar``, which imports nothing of this)."""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.nanobot._launch import (
        SIDECAR_COMMAND,
        config_path,
        plan_nanobot,
    )
    from adapters.nanobot._manifest import (
        CONTRIBUTION_KINDS,
        DEPENDENCY_KINDS,
        MANIFEST_FILE,
        RUNTIMES,
        NanobotManifest,
        dump_manifest,
        load_manifest,
    )
    from adapters.nanobot.adapter import ECOSYSTEM, NanobotAdapter

_WHERE = {
    "ECOSYSTEM": "adapters.nanobot.adapter",
    "NanobotAdapter": "adapters.nanobot.adapter",
    "CONTRIBUTION_KINDS": "adapters.nanobot._manifest",
    "DEPENDENCY_KINDS": "adapters.nanobot._manifest",
    "MANIFEST_FILE": "adapters.nanobot._manifest",
    "NanobotManifest": "adapters.nanobot._manifest",
    "RUNTIMES": "adapters.nanobot._manifest",
    "dump_manifest": "adapters.nanobot._manifest",
    "load_manifest": "adapters.nanobot._manifest",
    "SIDECAR_COMMAND": "adapters.nanobot._launch",
    "config_path": "adapters.nanobot._launch",
    "plan_nanobot": "adapters.nanobot._launch",
}

__all__ = [
    "CONTRIBUTION_KINDS",
    "DEPENDENCY_KINDS",
    "ECOSYSTEM",
    "MANIFEST_FILE",
    "RUNTIMES",
    "SIDECAR_COMMAND",
    "NanobotAdapter",
    "NanobotManifest",
    "config_path",
    "dump_manifest",
    "load_manifest",
    "plan_nanobot",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
