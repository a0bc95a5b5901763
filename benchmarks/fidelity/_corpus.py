"""The corpus file and its sources: each package fetched on demand into the cache folder
(npm tarballs checked against their pinned integrity, git trees taken at their pinned commit),
never into the repository."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SIDECAR_MODULES = REPO / "sidecars" / "node_modules"


class SourceUnavailable(Exception):
    """The package's source could not be had; ``str()`` says why."""


@dataclass(slots=True)
class Package:
    name: str
    ecosystem: str  # pi | openclaw | nanobot | nimlet | claude | agent-plugins
    source: str  # npm | git | local | sidecar
    spec: str = ""  # npm: NAME@VERSION
    integrity: str = ""  # npm: dist.integrity
    fixture: str = ""  # npm: a packed tarball in the repository, used by --quick
    repo: str = ""  # git: owner/name
    commit: str = ""  # git
    path: str = ""  # git: inside the repository; local: from the repository root;
    # sidecar: inside sidecars/node_modules
    kind: str = ""  # nimlet: extension | tool | skill | prompt
    config: dict[str, Any] = field(default_factory=dict)
    quick: bool = False
    note: str = ""

    @property
    def key(self) -> str:
        return "".join(c if c.isalnum() or c in "-_." else "_" for c in self.name)

    @property
    def installs(self) -> bool:
        """Installed with `gateway install` (npm and package folders); otherwise placed in
        the ecosystem's discovery folder (single extensions, as their users do)."""
        if self.ecosystem in ("nanobot", "openclaw", "claude", "agent-plugins"):
            return True
        if self.ecosystem == "pi":
            return self.source == "npm"
        return False


def load_corpus(path: Path) -> list[Package]:
    data = tomllib.loads(path.read_text())
    packages = []
    for item in data.get("package", []):
        packages.append(Package(**item))
    names = [p.name for p in packages]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ValueError(f"{path}: duplicate names {sorted(duplicates)}")
    return packages


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "extension-gateway-fidelity"


def _run(
    argv: list[str],
    cwd: Path | None = None,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env, check=False
    )


def npm_argv(npm: list[str], *args: str) -> list[str]:
    return [*npm, *args]


def check_integrity(tarball: Path, integrity: str) -> None:
    algorithm, _, expected = integrity.partition("-")
    if algorithm not in ("sha512", "sha384", "sha256", "sha1"):
        raise SourceUnavailable(f"unknown integrity {integrity!r}")
    digest = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
    if digest != expected:
        raise SourceUnavailable(
            f"{tarball.name}: integrity {algorithm}-{digest[:16]}… "
            f"is not the pinned {integrity[:24]}…"
        )


def fetch_npm(package: Package, cache: Path, npm: list[str], env: dict[str, str]) -> Path:
    """The package's tarball from the registry, checked against its pinned integrity."""
    folder = cache / "npm" / package.key
    done = folder / ".verified"
    if done.exists():
        return folder / done.read_text().strip()
    folder.mkdir(parents=True, exist_ok=True)
    result = _run(
        npm_argv(
            npm,
            "pack",
            package.spec,
            "--ignore-scripts",
            "--json",
            "--pack-destination",
            str(folder),
        ),
        cwd=folder,
        env=env,
    )
    if result.returncode != 0:
        raise SourceUnavailable(f"npm pack {package.spec}: {result.stderr.strip()[-300:]}")
    try:
        filename = json.loads(result.stdout)[0]["filename"]
    except (ValueError, LookupError):
        raise SourceUnavailable(f"npm pack {package.spec}: {result.stdout[:200]}") from None
    filename = filename.replace("@", "").replace("/", "-")
    tarball = folder / filename
    if not tarball.exists():
        found = sorted(folder.glob("*.tgz"))
        if not found:
            raise SourceUnavailable(f"npm pack {package.spec}: no tarball")
        tarball = found[0]
    check_integrity(tarball, package.integrity)
    done.write_text(tarball.name)
    return tarball


def extract(tarball: Path, into: Path) -> Path:
    """A packed fixture of this repository unpacked; the folder holding its package.json.
    GNU tar's C unpacks it (it refuses absolute and ``..`` names too): ``tarfile`` with its
    ``data`` filter resolved every member's path, 2-3 s of CPU per quick run, paid in
    every test run — and these tarballs are the repository's own, not a registry's."""
    if (into / ".done").exists():
        return into / (into / ".done").read_text().strip()
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    unpacked = subprocess.run(
        ["tar", "-x", "-f", str(tarball), "-C", str(into), "--no-same-owner"],
        capture_output=True,
        text=True,
        check=False,
    )
    if unpacked.returncode != 0:
        raise SourceUnavailable(f"tar -x {tarball.name}: {unpacked.stderr.strip()[-400:]}")
    roots = [p for p in into.iterdir() if p.is_dir()]
    root = roots[0] if len(roots) == 1 else into
    (into / ".done").write_text(root.name if root != into else ".")
    return root


def git_mirror(repo: str, mirrors: Path) -> Path | None:
    for candidate in (mirrors / repo.replace("/", "+") / "repo", mirrors / repo.replace("/", "+")):
        if (candidate / "HEAD").exists() or (candidate / ".git").exists():
            return candidate
    return None


def fetch_git(package: Package, cache: Path, mirrors: Path) -> Path:
    """The package's folder (or file) at the pinned commit: from a local mirror of the
    repository (``--git-mirrors``), else a clone of it."""
    tree = cache / "git" / f"{package.repo.replace('/', '+')}@{package.commit[:12]}"
    target = tree / package.path
    if (tree / ".done").exists():
        if not target.exists():
            raise SourceUnavailable(
                f"{package.path} is not in {package.repo}@{package.commit[:12]}"
            )
        return target
    mirror = git_mirror(package.repo, mirrors)
    if mirror is None:
        clone = cache / "git-clones" / package.repo.replace("/", "+")
        if not clone.exists():
            result = _run(
                [
                    "git",
                    "clone",
                    "--bare",
                    "--filter=blob:none",
                    f"https://github.com/{package.repo}.git",
                    str(clone),
                ],
                timeout=600,
            )
            if result.returncode != 0:
                raise SourceUnavailable(
                    f"no mirror of {package.repo} in {mirrors} and no clone: "
                    f"{result.stderr.strip()[-200:]}"
                )
        mirror = clone
    tree.mkdir(parents=True, exist_ok=True)
    # The whole examples folder of that commit at once: the corpus names many of its files.
    prefix = str(Path(package.path).parent)
    archive = subprocess.run(
        ["git", f"--git-dir={mirror}", "archive", "--format=tar", package.commit, prefix],
        capture_output=True,
        check=False,
        timeout=300,
    )
    if archive.returncode != 0:
        raise SourceUnavailable(
            f"git archive {package.repo}@{package.commit[:12]} {prefix}: "
            f"{archive.stderr.decode(errors='replace').strip()[-200:]}"
        )
    import io

    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    (tree / ".done").write_text(package.commit)
    if not target.exists():
        raise SourceUnavailable(f"{package.path} is not in {package.repo}@{package.commit[:12]}")
    return target


def prepare_folder(folder: Path, npm: list[str], env: dict[str, str], log: Path) -> str | None:
    """A folder extension with its own dependencies gets them installed once, as its README
    tells its users (``npm install``); shared by both sides. Returns a problem, or None."""
    manifest = folder / "package.json"
    if not folder.is_dir() or not manifest.exists() or (folder / "node_modules").exists():
        return None
    try:
        deps = json.loads(manifest.read_text()).get("dependencies") or {}
    except ValueError:
        return None
    if not deps:
        return None
    result = _run(
        npm_argv(
            npm,
            "install",
            "--omit=dev",
            "--legacy-peer-deps",
            "--no-audit",
            "--no-fund",
            "--no-package-lock",
        ),
        cwd=folder,
        env=env,
    )
    log.write_text(result.stdout + result.stderr)
    if result.returncode != 0:
        return f"npm install in {folder.name}: {result.stderr.strip()[-300:]}"
    return None


def materialize(
    package: Package, cache: Path, quick: bool, mirrors: Path, npm: list[str], env: dict[str, str]
) -> Path:
    """The package's source on disk: a tarball (npm) or a folder / file."""
    if package.source == "npm":
        if quick and package.fixture:
            return REPO / package.fixture
        return fetch_npm(package, cache, npm, env)
    if package.source == "git":
        target = fetch_git(package, cache, mirrors)
        problem = prepare_folder(target, npm, env, cache / "git" / f"{package.key}.npm.log")
        if problem:
            raise SourceUnavailable(problem)
        return target
    if package.source == "local":
        target = REPO / package.path
    elif package.source == "sidecar":
        target = SIDECAR_MODULES / package.path
    else:
        raise SourceUnavailable(f"unknown source {package.source!r}")
    if not target.exists():
        raise SourceUnavailable(f"{target} does not exist")
    return target
