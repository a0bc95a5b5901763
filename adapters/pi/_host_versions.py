"""The Pi host packages a Pi package runs against, and the version ranges it declares for them.

A Pi package lists the host packages (pi-coding-agent, pi-ai, pi-tui, pi-agent-core,
TypeBox) in ``peerDependencies`` and the host supplies them: in the gateway, the versions
pinned in ``sidecars/package-lock.json``. Pi's loader maps the old ``@mariozechner/*`` scope
onto the same modules and ``@sinclair/typebox`` onto ``typebox``, so a range declared for an
old name is checked against what actually loads. A range that excludes the pinned version is
a warning (the package may still work; it was not built for it); a range that cannot be read
is a note.
"""

from __future__ import annotations

import functools
import json
from typing import Final

from adapters import _codes as codes
from adapters._files import Inspection
from adapters._semver import satisfies
from adapters._sidecars import SOURCE_DIR

__all__ = ["check_host_ranges", "pinned_versions"]

_CURRENT_SCOPE: Final = "@earendil-works"
_HOST_NAMES: Final = ("pi-ai", "pi-agent-core", "pi-coding-agent", "pi-tui")
_ALIASES: Final = {
    **{f"@mariozechner/{name}": f"{_CURRENT_SCOPE}/{name}" for name in _HOST_NAMES},
    "@sinclair/typebox": "typebox",
}


@functools.cache
def pinned_versions() -> dict[str, str]:
    """Host package → the version the sidecar pins (empty when the lockfile is unreadable)."""
    try:
        lock = json.loads((SOURCE_DIR / "package-lock.json").read_text(encoding="utf-8"))
        installed = lock["packages"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    names = [f"{_CURRENT_SCOPE}/{name}" for name in _HOST_NAMES] + ["typebox"]
    found = {name: installed.get(f"node_modules/{name}", {}).get("version") for name in names}
    return {name: version for name, version in found.items() if isinstance(version, str)}


def check_host_ranges(inspection: Inspection, raw: dict[str, object]) -> None:
    """Check each ``peerDependencies`` range on a Pi host package against the pinned one."""
    peers = raw.get("peerDependencies")
    if not isinstance(peers, dict):
        return
    pinned = pinned_versions()
    for name, wanted in peers.items():
        runs_as = _ALIASES.get(str(name), str(name))
        version = pinned.get(runs_as)
        if version is None or not isinstance(wanted, str):
            continue
        loads = f"{version}" if runs_as == name else f"{runs_as} {version}"
        verdict = satisfies(version, wanted)
        where = f"package.json peerDependencies {name} {wanted!r}"
        if verdict is False:
            inspection.add(
                codes.PI_HOST_VERSION_MISMATCH(
                    f"{where} excludes {loads}, the version the gateway runs it with"
                )
            )
        elif verdict is None:
            inspection.add(
                codes.PI_HOST_VERSION_UNCHECKED(
                    f"{where} cannot be read as a version range; it runs with {loads}"
                )
            )
