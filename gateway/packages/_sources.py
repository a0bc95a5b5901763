"""Install sources: a local folder, a git repository at a ref, an npm package.

Each fetch fills an empty staging folder with the package's files and nothing of the
package ever runs: git runs no hooks and fetches no submodules, npm runs no scripts.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from gateway.base import Diagnostic, GatewayError, Progress, no_progress
from gateway.packages._npm import fetch_npm_tarball
from gateway.packages._tools import FetchError, run_tool
from gateway.packages._trees import copy_tree, remove_tree, staged_root
from gateway.packages._verify import InstallLimits

__all__ = ["FetchError", "Fetched", "Source", "SourceError", "fetch", "parse_source"]

SOURCE_KINDS = ("local", "git", "npm")
_GIT_URL = re.compile(r"^(?:git\+)?(?:https?|ssh|git)://|^[\w.-]+@[\w.-]+:|\.git(?:#.*)?$")
_REFUSED_URL = re.compile(r"(?i)^(git\+)?(file://|[a-z][\w+.-]*::)")
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:")
_GITHUB = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$")
_MEMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,213}$")


class SourceError(GatewayError):
    """A package named as ``gateway install`` takes it, or by an installed id, cannot be
    fetched, read or used (by ``gateway audit``, ``gateway migrate``); ``str()`` says why,
    ``diagnostics`` are the package's own (those of the install that refused it)."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = diagnostics or []


@dataclass(frozen=True, slots=True)
class Source:
    kind: str  # local | git | npm
    location: str  # folder, URL/path, or npm spec / tarball path
    ref: str | None = None  # git branch, tag or commit
    member: str | None = None  # the package a collection offers (a marketplace's plugin)

    def describe(self, follows: str | None = None) -> str:
        """As a person gives it; ``follows`` (git: a ref, "" the default branch) in place
        of the ref fetched — what ``sync`` records after fetching a lockfile's commit."""
        ref = self.ref if follows is None or self.kind != "git" else follows or None
        if self.kind == "git" and self.member:
            return f"{self.location}#{ref or ''}#{self.member}"
        described = f"{self.location}#{ref}" if ref else self.location
        return f"{described}#{self.member}" if self.member else described


@dataclass(frozen=True, slots=True)
class Fetched:
    source: Source
    root: Path  # the package root inside the staging folder
    resolved: str  # what was fetched exactly: a commit, an npm tarball name
    integrity: str | None = None  # an npm tarball's sha512, in npm's dist.integrity form
    ref_as_member: bool = False
    """``URL#NAME`` where NAME is no ref of the repository: fetched at its default branch,
    NAME the package it may offer (``source.member``)."""


def parse_source(text: str, kind: str | None = None) -> Source:
    """Decide the kind of ``text`` (unless given) and check it is allowed."""
    if kind is not None and kind not in SOURCE_KINDS:
        raise FetchError(f"unknown source kind {kind!r}; use one of {', '.join(SOURCE_KINDS)}")
    member = _offered_member(text, kind)
    if member is not None:
        return member
    text, kind = _github_shorthand(text, kind)
    if kind is None:
        looks_like_path = text.startswith(("/", "./", "../", "~"))
        if _GIT_URL.search(text) or _REFUSED_URL.match(text):
            kind = "git"  # so that file:// and ext:: are refused as git URLs, not packed
        elif looks_like_path and not Path(text).expanduser().exists():
            raise FetchError(f"{text} does not exist")
        elif _looks_like_missing_path(text):
            raise FetchError(
                f"{text} does not exist. A folder or tarball: check the path; an npm package: "
                f"its name (scoped: @scope/name); a git repository: its URL; a plugin of a "
                f"GitHub marketplace: OWNER/REPO#PLUGIN; or `--kind npm` to hand {text} to npm "
                f"as it is"
            )
        elif Path(text).expanduser().is_dir():
            kind = "local"
        else:
            kind = "npm"
    if kind == "git":
        # URL#REF, or URL#REF#NAME / URL##NAME: the package NAME a collection there offers.
        location, _, rest = text.partition("#")
        ref, _, name = rest.partition("#")
        _check_git_url(location)
        return Source("git", location, ref or None, name or None)
    if kind == "local":
        folder = Path(text).expanduser()
        if not folder.is_dir():
            raise FetchError(f"{text} is not a folder")
        return Source("local", str(folder.resolve()))
    return Source("npm", text)


def _offered_member(text: str, kind: str | None) -> Source | None:
    """``FOLDER#NAME``: the package NAME that the folder (a Claude Code marketplace) offers,
    when FOLDER is a folder and ``FOLDER#NAME`` itself is not."""
    folder_text, hash_sign, name = text.rpartition("#")
    if not hash_sign or kind not in (None, "local") or not name or _GIT_URL.search(text):
        return None
    folder = Path(folder_text).expanduser()
    if Path(text).expanduser().exists() or not folder.is_dir():
        return None
    return Source("local", str(folder.resolve()), member=name)


def _github_shorthand(text: str, kind: str | None) -> tuple[str, str | None]:
    """``OWNER/REPO#…`` (as Claude Code's ``/plugin marketplace add`` reads it) is the
    GitHub repository when no such path exists; without ``#`` it stays a path typo."""
    head, hash_sign, rest = text.partition("#")
    if not hash_sign or kind not in (None, "git") or not _GITHUB.match(head):
        return text, kind
    if Path(head).expanduser().exists():
        return text, kind
    return f"https://github.com/{head}.git#{rest}", "git"


def _check_git_url(url: str) -> None:
    lowered = url.lower()
    if lowered.startswith("ext::") or "::" in lowered.split("/", 1)[0]:
        raise FetchError(f"git remote helper URLs ({url.split('::')[0]}::) are refused")
    if lowered.startswith("file://"):
        raise FetchError("file:// git URLs are refused; give the repository's path instead")
    if lowered.startswith("-"):
        raise FetchError("a git URL cannot start with '-'")
    if lowered.split("?", 1)[0].endswith(".json"):
        raise FetchError(
            f"{url} names a file, not a git repository: a marketplace.json by URL is not read "
            "(its plugins' relative sources cannot be fetched); install from the repository "
            "that holds it (OWNER/REPO#PLUGIN, GIT-URL#PLUGIN) or a clone of it (FOLDER#PLUGIN)"
        )
    if "://" in url:
        parts = urlsplit(url.removeprefix("git+"))
        if parts.password is not None or (parts.username and parts.scheme.startswith("http")):
            raise FetchError("credentials in git URLs are refused; use a credential helper")
        if parts.scheme not in ("https", "http", "ssh", "git"):
            raise FetchError(f"git URL scheme {parts.scheme!r} is refused")


def _looks_like_missing_path(text: str) -> bool:
    """``dir/pkg`` or ``pkg.tgz`` that is not there: a path typo (npm would take ``a/b`` for
    a GitHub repository and fail with git's exit 128), unless it is a scoped npm name."""
    if Path(text).expanduser().exists() or text.startswith("@") or ":" in text:
        return False
    return "/" in text or text.endswith((".tgz", ".tar.gz", ".tar"))


def fetch(
    source: Source,
    staging: Path,
    *,
    home: Path,
    limits: InstallLimits | None = None,
    progress: Progress = no_progress,
    is_package: Callable[[Path], bool] | None = None,
) -> Fetched:
    """Fill the empty folder ``staging`` with the package; returns where its root is.

    A local folder is copied and an npm tarball unpacked within ``limits`` (raising
    ``VerifyError`` at the first file over them); what git and npm write is checked by
    ``verify_tree`` afterwards. An npm package that ``is_package`` says is none (of no
    format: its install is refused) gets no dependencies installed."""
    limits = limits or InstallLimits()
    progress(f"fetching {source.describe()} ({source.kind})")
    if source.kind == "local":
        target = staged_root(staging, Path(source.location).name)
        try:
            copy_tree(Path(source.location), target, limits)
        except OSError as error:
            raise FetchError(f"cannot copy {source.location}: {error}") from None
        return Fetched(source, target, source.location)
    if source.kind == "git":
        return _fetch_git(source, staging)
    target, name, integrity = fetch_npm_tarball(
        source.location, staging, limits=limits, home=home, progress=progress,
        is_package=is_package,
    )  # fmt: skip
    return Fetched(source, target, name, integrity)


def _fetch_git(source: Source, staging: Path) -> Fetched:
    target = staged_root(staging, _repository_name(source.location))
    hardening = ["-c", "core.hooksPath=/dev/null", "-c", "credential.helper=",
                 "-c", "protocol.ext.allow=never", "-c", "protocol.file.allow=user"]  # fmt: skip
    location = source.location
    if not _GIT_URL.search(location) and not _SCP_LIKE.match(location):
        location = str(Path(location).expanduser().resolve())
    run_tool(["git", *hardening, "clone", "--quiet", "--no-checkout", "--", location, str(target)],
         None, f"git clone {source.location}")  # fmt: skip
    as_member = False
    try:
        commit = _resolve_ref(target, source.ref or "HEAD", hardening)
    except FetchError:
        # URL#NAME, NAME no ref: the default branch, and NAME the package it may offer.
        if source.member is not None or not _MEMBER.match(source.ref or ""):
            raise
        commit = _resolve_ref(target, "HEAD", hardening)
        source = dataclasses.replace(source, ref=None, member=source.ref)
        as_member = True
    run_tool(
        ["git", *hardening, "checkout", "--quiet", "--detach", commit],
        target,
        f"git checkout {commit}",
    )
    remove_tree(target / ".git")
    return Fetched(source, target, commit, ref_as_member=as_member)


def _repository_name(location: str) -> str:
    """``https://host/owner/notes.git`` → ``notes``; a path's last folder."""
    last = location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return last.removesuffix(".git")


def _resolve_ref(repository: Path, ref: str, hardening: list[str]) -> str:
    """A branch (remote), a tag or a commit, in that order."""
    for candidate in (f"origin/{ref}", f"refs/tags/{ref}", ref):
        try:
            command = ["git", *hardening, "rev-parse", "--verify", "--quiet"]
            found = run_tool([*command, f"{candidate}^{{commit}}"], repository, f"git ref {ref}")
            return found.strip()
        except FetchError:
            continue
    raise FetchError(f"git ref {ref!r} is not a branch, tag or commit of the repository")
