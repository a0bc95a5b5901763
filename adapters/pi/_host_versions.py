"""The Pi host packages a Pi package runs against, and the version ranges it declares for them.

A Pi package lists the host packages (pi-coding-agent, pi-ai, pi-tui, pi-agent-core,
TypeBox) in ``peerDependencies`` and the host supplies them: in the gateway, the versions
pinned in ``sidecars/package-lock.json``. Pi's loader maps the old ``@mariozechner/*`` scope
onto the same modules and ``@sinclair/typebox`` onto ``typebox``, so a range declared for an
old name is checked against what actually loads. A range that excludes the pinned version is
a warning (the package may still work; it was not built for it); a range that cannot be read
is a note.

Where Pi's behaviour changed between versions, the version a package declares decides which
behaviour it gets (``declared_host_version``): a package whose range excludes the pinned Pi
runs with the behaviour of the newest Pi release its range admits (from the installed Pi's
own CHANGELOG), the way the two nimlet protocol generations live side by side.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Final

from adapters._files import Inspection
from adapters._semver import satisfies
from adapters._sidecars import SOURCE_DIR
from adapters.pi import _codes as codes

__all__ = ["check_host_ranges", "declared_host_version", "pi_releases", "pinned_versions"]

_CURRENT_SCOPE: Final = "@earendil-works"
_HOST_NAMES: Final = ("pi-ai", "pi-agent-core", "pi-coding-agent", "pi-tui")
_ALIASES: Final = {
    **{f"@mariozechner/{name}": f"{_CURRENT_SCOPE}/{name}" for name in _HOST_NAMES},
    "@sinclair/typebox": "typebox",
}
_CODING_AGENT: Final = f"{_CURRENT_SCOPE}/pi-coding-agent"
_RELEASE: Final = re.compile(r"^## \[(\d+\.\d+\.\d+)\]", re.MULTILINE)


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
    deciding, target = _deciding_range(peers)
    for name, wanted in peers.items():
        runs_as = _ALIASES.get(str(name), str(name))
        version = pinned.get(runs_as)
        if version is None or not isinstance(wanted, str):
            continue
        loads = f"{version}" if runs_as == name else f"{runs_as} {version}"
        verdict = satisfies(version, wanted)
        where = f"package.json peerDependencies {name} {wanted!r}"
        if verdict is False:
            keeps = ""
            if name == deciding and target is not None:
                keeps = (
                    f"; where Pi's behaviour changed after {target}, the package keeps "
                    f'{target}\'s (docs/pi.md, "Host versions")'
                )
            inspection.add(
                codes.PI_HOST_VERSION_MISMATCH(
                    f"{where} excludes {loads}, the version the gateway runs it with{keeps}"
                )
            )
        elif verdict is None:
            inspection.add(
                codes.PI_HOST_VERSION_UNCHECKED(
                    f"{where} cannot be read as a version range; it runs with {loads}"
                )
            )


@functools.cache
def pi_releases() -> tuple[str, ...]:
    """Every Pi release the installed pi-coding-agent's CHANGELOG lists, newest first (its
    packages are released together under one version)."""
    changelog = SOURCE_DIR / "node_modules" / _CODING_AGENT / "CHANGELOG.md"
    try:
        text = changelog.read_text(encoding="utf-8")
    except OSError:
        return ()
    return tuple(_RELEASE.findall(text))


def declared_host_version(root: Path) -> str | None:
    """The Pi version a package targets when its ``peerDependencies`` range on a Pi host
    package (pi-coding-agent first, then pi-agent-core, pi-ai, pi-tui, either scope) excludes
    the pinned one: the newest Pi release the range admits. None: the pinned Pi's behaviour
    (no range, a range admitting the pinned version, one that cannot be read, or one admitting
    no known release). Reads ``package.json`` only, never the package's code."""
    try:
        raw = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    peers = raw.get("peerDependencies") if isinstance(raw, dict) else None
    return _deciding_range(peers)[1] if isinstance(peers, dict) else None


def _deciding_range(peers: dict[str, object]) -> tuple[str | None, str | None]:
    """The peer dependency whose range decides the Pi a package targets, and that Pi (None:
    the pinned one's behaviour)."""
    pinned = pinned_versions().get(_CODING_AGENT)
    if pinned is None:
        return None, None
    for name in ("pi-coding-agent", "pi-agent-core", "pi-ai", "pi-tui"):
        for scoped in (f"{_CURRENT_SCOPE}/{name}", f"@mariozechner/{name}"):
            wanted = peers.get(scoped)
            if not isinstance(wanted, str):
                continue
            if satisfies(pinned, wanted) is not False:
                return scoped, None
            return scoped, next((v for v in pi_releases() if satisfies(v, wanted)), None)
    return None, None
