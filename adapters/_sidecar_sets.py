"""The Node sidecar's two install sets, from one lockfile (``sidecars/package-lock.json``).

- **base** — the Pi host, the Nu host and the shared sidecar (``@earendil-works/
  pi-coding-agent``, ``esbuild``, ``jiti``, their dependencies): the package.json's
  ``dependencies``, ``npm ci --omit=dev``. What every ``gateway setup`` installs.
- **openclaw** — the real ``openclaw`` package, whose SDK OpenClaw plugins import (and what
  only it needs). It is the package.json's one ``devDependency`` so that npm can leave it
  out: ``npm ci --include=dev`` installs both sets. ``gateway setup`` adds it with
  ``--openclaw`` or ``--all``, when an installed package needs it (an OpenClaw package, a
  nanobot package with ``runtime: openclaw``), or when it was installed before.

What each set downloads and takes on disk was measured (``sidecars/install-sets.json``,
written by ``python -m adapters._sidecar_sets measure``: both sets installed with an empty
npm cache, the cached tarballs' sizes summed, ``node_modules`` measured) for the lockfile
whose digest it records; setup says it before npm runs. For another lockfile it says the
size was not measured, never a guess.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = [
    "ALL",
    "OPENCLAW",
    "SIZES_FILE",
    "InstallPlan",
    "SetSize",
    "lockfile_digest",
    "needed_by_installed",
    "plan_install",
    "read_sizes",
    "wants_openclaw",
]

OPENCLAW = "openclaw"
"""``gateway setup --openclaw``: the OpenClaw SDK's set too."""
ALL = "all"
"""``gateway setup --all``: every set (what a clone's ``python -m adapters.pi.runtime`` does)."""
SIZES_FILE = "install-sets.json"
"""Beside the lockfile: what each set was measured to download and take on disk."""
OPENCLAW_MODULE = Path("node_modules") / "openclaw" / "package.json"
"""Installed when the OpenClaw set is."""


@dataclass(frozen=True, slots=True)
class SetSize:
    packages: int
    download_bytes: int
    installed_bytes: int

    def describe(self) -> str:
        return (
            f"about {_mb(self.download_bytes)} to download, {_mb(self.installed_bytes)} on "
            f"disk ({self.packages} packages)"
        )


@dataclass(frozen=True, slots=True)
class InstallPlan:
    """What ``npm ci`` installs and what setup says first."""

    openclaw: bool
    npm_args: tuple[str, ...]
    statement: str
    hint: str | None = None
    """For a base-only install: how to add the OpenClaw SDK, and its size."""


def _mb(size: int) -> str:
    return f"{size / 1_000_000:,.0f} MB"


def lockfile_digest(folder: Path) -> str:
    return "sha256:" + hashlib.sha256((folder / "package-lock.json").read_bytes()).hexdigest()


def read_sizes(folder: Path) -> dict[str, SetSize] | None:
    """The measured sizes of ``base`` and ``openclaw`` (the OpenClaw set's own, beyond
    base) for the lockfile in ``folder``; None when not measured for this lockfile."""
    try:
        data = json.loads((folder / SIZES_FILE).read_text(encoding="utf-8"))
        if data.get("lockfile") != lockfile_digest(folder):
            return None
        return {
            name: SetSize(int(s["packages"]), int(s["download_bytes"]), int(s["installed_bytes"]))
            for name, s in data["sets"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def plan_install(
    *, openclaw: bool, sizes: dict[str, SetSize] | None, base_installed: bool
) -> InstallPlan:
    """The ``npm ci`` arguments for the sets wanted, and the size statement said before
    it runs (``base_installed``: only the OpenClaw set is new)."""
    unmeasured = "size not measured for this lockfile"
    base = sizes.get("base") if sizes else None
    extra = sizes.get(OPENCLAW) if sizes else None
    if not openclaw:
        what = base.describe() if base else unmeasured
        hint = (
            "the OpenClaw SDK, for OpenClaw plugins, is not installed: `gateway setup "
            f"--openclaw` adds it: {extra.describe() if extra else unmeasured}"
        )
        return InstallPlan(
            False,
            ("--omit=dev",),
            f"installing the Pi and Nu runtimes: {what}",
            hint,
        )
    if base_installed:
        what = extra.describe() if extra else unmeasured
        statement = (
            f"adding the OpenClaw SDK: {what} (npm ci reinstalls the rest; what its cache "
            "holds is not downloaded again)"
        )
    elif base and extra:
        total = SetSize(
            base.packages + extra.packages,
            base.download_bytes + extra.download_bytes,
            base.installed_bytes + extra.installed_bytes,
        )
        statement = f"installing the Pi and Nu runtimes and the OpenClaw SDK: {total.describe()}"
    else:
        statement = f"installing the Pi and Nu runtimes and the OpenClaw SDK: {unmeasured}"
    return InstallPlan(True, ("--include=dev",), statement)


def wants_openclaw(extras: Collection[str], *, installed_before: bool, home: Path) -> str | None:
    """Why this setup installs the OpenClaw set (None: it does not)."""
    if ALL in extras or OPENCLAW in extras:
        return "asked for"
    if installed_before:
        return "installed before"
    needing = needed_by_installed(home)
    if needing:
        return f"needed by {', '.join(needing)}"
    return None


def needed_by_installed(home: Path) -> list[str]:
    """The installed packages that run on OpenClaw's SDK: OpenClaw packages and nanobot
    packages with ``runtime: openclaw`` (read from the store; none when there is none)."""
    if not (home / STATE_FILE).exists():
        return []
    try:
        with StateStore.open(home) as store:
            packages = store.list_packages()
    except StoreError:
        return []
    return sorted(
        p.id
        for p in packages
        if p.record.ecosystem == "openclaw"
        or (p.record.ecosystem == "nanobot" and _nanobot_runtime(p.record.path) == "openclaw")
    )


def _nanobot_runtime(root: Path) -> object:
    try:
        manifest = json.loads((root / "nanobot.extension.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest.get("runtime") if isinstance(manifest, dict) else None


# --------------------------------------------------------------------------- measuring


def _tarball_bytes(cache: Path, integrity: str) -> int | None:
    """The size of the tarball npm's cache holds for ``integrity`` (cacache's layout)."""
    import base64

    algorithm, _, encoded = integrity.split()[0].partition("-")
    digest = base64.b64decode(encoded).hex()
    path = cache / "_cacache" / "content-v2" / algorithm / digest[:2] / digest[2:4] / digest[4:]
    return path.stat().st_size if path.is_file() else None


def _disk_bytes(folder: Path) -> int:
    """What ``du`` counts: allocated blocks of every file, each inode once."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for parent, _dirs, files in os.walk(folder):
        for name in (*files, *_dirs):
            stat = os.lstat(os.path.join(parent, name))
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total


def measure(lockfile_folder: Path, base: Path, full: Path, cache: Path) -> dict[str, object]:
    """Sizes from two installs of ``lockfile_folder``'s lockfile (``base``: ``npm ci
    --omit=dev``, ``full``: ``--include=dev``) made with the empty npm cache ``cache``."""
    lock = json.loads((lockfile_folder / "package-lock.json").read_text(encoding="utf-8"))
    entries = {key: value for key, value in lock["packages"].items() if key}

    def downloaded(root: Path) -> tuple[int, int]:
        installed = [key for key in entries if (root / key).is_dir()]
        # A bundled dependency comes inside its parent's tarball: no download of its own.
        fetched = [key for key in installed if not entries[key].get("inBundle")]
        sizes = [_tarball_bytes(cache, entries[key]["integrity"]) for key in fetched]
        missing = [key for key, size in zip(fetched, sizes, strict=True) if size is None]
        if missing:
            raise SystemExit(f"not in the npm cache: {missing[:5]}")
        return len(installed), sum(size or 0 for size in sizes)

    base_count, base_download = downloaded(base)
    full_count, full_download = downloaded(full)
    base_disk = _disk_bytes(base / "node_modules")
    full_disk = _disk_bytes(full / "node_modules")
    return {
        "lockfile": lockfile_digest(lockfile_folder),
        "measured": f"{sys.platform}-{platform.machine()}, npm ci --ignore-scripts, "
        "empty npm cache",
        "sets": {
            "base": {"packages": base_count, "download_bytes": base_download,
                     "installed_bytes": base_disk},
            OPENCLAW: {"packages": full_count - base_count,
                       "download_bytes": full_download - base_download,
                       "installed_bytes": full_disk - base_disk},
        },
    }  # fmt: skip


def _measure_main() -> int:
    """``python -m adapters._sidecar_sets measure``: install both sets in temporary folders
    with an empty npm cache (the registry is needed) and write ``install-sets.json``."""
    import subprocess
    import tempfile

    from gateway.runtime import find_node, npm_command, npm_environment

    sources = Path(__file__).resolve().parents[1] / "sidecars"  # the checkout's

    node = find_node()
    npm = npm_command(node) if node else None
    if node is None or npm is None:
        print("no Node/npm", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="gateway-measure-") as scratch:
        root = Path(scratch)
        cache = root / "cache"
        for name, flag in (("base", "--omit=dev"), ("full", "--include=dev")):
            folder = root / name
            folder.mkdir()
            for file in ("package.json", "package-lock.json"):
                (folder / file).write_bytes((sources / file).read_bytes())
            command = [*npm, "ci", flag, "--ignore-scripts", "--no-audit", "--no-fund",
                       f"--cache={cache}", "--loglevel=error"]  # fmt: skip
            subprocess.run(command, cwd=folder, env=npm_environment(), check=True)
        result = measure(sources, root / "base", root / "full", cache)
    (sources / SIZES_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["measure"]:
        print("usage: python -m adapters._sidecar_sets measure", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(_measure_main())
