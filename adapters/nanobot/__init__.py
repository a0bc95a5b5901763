"""nanobot: the strict ``nanobot.extension.json`` manifest, its adapter and its runtime
(the Python sidecar in ``adapters.nanobot.sidecar``, which imports nothing of this)."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.nanobot._launch import SIDECAR_COMMAND as SIDECAR_COMMAND
    from adapters.nanobot._launch import config_path as config_path
    from adapters.nanobot._launch import plan_nanobot as plan_nanobot
    from adapters.nanobot._manifest import CONTRIBUTION_KINDS as CONTRIBUTION_KINDS
    from adapters.nanobot._manifest import DEPENDENCY_KINDS as DEPENDENCY_KINDS
    from adapters.nanobot._manifest import MANIFEST_FILE as MANIFEST_FILE
    from adapters.nanobot._manifest import RUNTIMES as RUNTIMES
    from adapters.nanobot._manifest import NanobotManifest as NanobotManifest
    from adapters.nanobot._manifest import dump_manifest as dump_manifest
    from adapters.nanobot._manifest import load_manifest as load_manifest
    from adapters.nanobot.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.nanobot.adapter import NanobotAdapter as NanobotAdapter


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
