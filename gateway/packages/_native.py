"""Native addons an installed package cannot load: said at install, naming what is missing.

``gateway install`` never runs a package's code, install scripts included (npm runs with
``--ignore-scripts``). A dependency that builds its native addon at install (a
``binding.gyp`` for node-gyp) or downloads it then (``prebuild-install``) is left without
its ``.node`` binary, and the package fails at load ("Failed to load native module", "Could
not locate the bindings file"). A dependency that ships a prebuilt binary for this platform
(``prebuilds/<platform>-<arch>/``, ``build/Release/``, or a platform package such as
``@scope/name-linux-x64-gnu``) loads as it is. This module finds the first kind, so install
says which dependency, for which platform, before anything runs.
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

from gateway.base import Diagnostic
from gateway.packages import _codes

__all__ = ["native_platform", "unbuilt_native_addons"]

_MAX_ENTRIES = 200_000
"""Directory entries looked at, at most: a package's tree is hostile input."""
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def native_platform() -> str:
    """Node's name for this machine, e.g. ``linux-x64``."""
    machine = platform.machine().lower()
    system = "win32" if sys.platform.startswith("win") else sys.platform.rstrip("0123456789")
    return f"{system}-{_ARCH.get(machine, machine)}"


def unbuilt_native_addons(root: Path, package_id: str) -> list[Diagnostic]:
    """``install.native_addon_unbuilt`` for each dependency under ``root/node_modules`` that
    builds its native addon at install and holds no binary for this platform."""
    here = native_platform()
    found: list[Diagnostic] = []
    for folder in _addon_packages(root / "node_modules"):
        if _has_binary(folder, here):
            continue
        name = _package_name(root / "node_modules", folder)
        found.append(
            _codes.INSTALL_NATIVE_ADDON_UNBUILT(
                f"{package_id}: its dependency {name} builds a native addon when it is "
                f"installed (binding.gyp) and holds no prebuilt binary for {here}; install "
                'scripts never run here, so loading it fails ("Failed to load native '
                'module")',
                package=package_id,
                contribution=name,
            )
        )
    return found


def _addon_packages(modules: Path) -> list[Path]:
    """Package folders under ``modules`` (nested ``node_modules`` too) with a binding.gyp."""
    found: list[Path] = []
    looked = 0
    for folder, subfolders, names in os.walk(modules):
        looked += len(subfolders) + len(names)
        if looked > _MAX_ENTRIES:
            break
        subfolders[:] = sorted(d for d in subfolders if not d.startswith("."))
        if "binding.gyp" in names and "package.json" in names:
            found.append(Path(folder))
            # Its own nested node_modules may hold others; its sources do not.
            subfolders[:] = [d for d in subfolders if d == "node_modules"]
    return found


def _has_binary(package: Path, here: str) -> bool:
    prebuilds = package / "prebuilds"
    if prebuilds.is_dir():
        return any((prebuilds / here).glob("*.node"))
    for folder in ("build/Release", "build/Debug", "bin", "lib/binding"):
        if any((package / folder).rglob("*.node")):
            return True
    return False


def _package_name(modules: Path, folder: Path) -> str:
    """``name`` or ``@scope/name``: what follows the innermost ``node_modules``."""
    parts = list(folder.relative_to(modules).parts)
    while "node_modules" in parts:
        parts = parts[parts.index("node_modules") + 1 :]
    if not parts:
        return folder.name
    return "/".join(parts[:2]) if parts[0].startswith("@") else parts[0]
