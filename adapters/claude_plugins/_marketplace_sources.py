"""A marketplace plugin's object ``source`` as a source the installer fetches with its own
git, npm and archive fetchers: ``github`` (``repo``, ``ref``, ``sha``), ``url`` (a git URL,
``ref``, ``sha``), ``git-subdir`` (a git URL, the plugin's ``path`` in it, ``ref``, ``sha``),
``npm`` (``package``, ``version``), ``archive`` (an https ``url`` and its ``sha256``).
Package-controlled text: only https/ssh git URLs, npm registry names and https archive URLs
pass, never a local path, a file URL or a tarball; a ``path`` is relative with no ``..``."""

from __future__ import annotations

import re
from typing import Any, Final

from adapters._marketplaces import GITHUB_REPO, git_location
from adapters.claude_plugins import _codes as codes
from gateway.base import Diagnostic
from gateway.model import OfferedSource

__all__ = ["remote_source"]

_NPM_NAME: Final = re.compile(r"^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]{0,213}$")
_NPM_VERSION: Final = re.compile(r"^[\w.^~<>=| *+-]{1,100}$")
_SHA256: Final = re.compile(r"^[0-9a-fA-F]{64}$")
_ARCHIVE_URL: Final = re.compile(r"^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?/[^\s#]{0,2000}$")
_PATH_PART: Final = re.compile(r"^[\w][\w.@+-]{0,254}$")


def remote_source(name: str, source: dict[str, Any]) -> OfferedSource | list[Diagnostic]:
    kind = source.get("source")
    if kind == "github":
        repo = source.get("repo")
        if not isinstance(repo, str) or not GITHUB_REPO.match(repo):
            return _invalid(name, f"`repo` {repo!r} is not OWNER/NAME")
        return _git(name, f"https://github.com/{repo}.git", source)
    if kind == "url":
        return _git(name, source.get("url"), source)
    if kind == "git-subdir":
        path = source.get("path")
        located = _git(name, source.get("url"), source)
        if isinstance(located, list):
            return located
        if not isinstance(path, str) or not _subfolder(path):
            return _invalid(name, f"`path` {path!r} is not a relative folder without `..`")
        return OfferedSource("git", located.location, _subfolder(path))
    if kind == "archive":
        url, digest = source.get("url"), source.get("sha256")
        if not isinstance(url, str) or not _ARCHIVE_URL.match(url) or "@" in url.split("/")[2]:
            return _invalid(name, f"`url` {url!r} is not an https URL without credentials")
        if not isinstance(digest, str) or not _SHA256.match(digest):
            return _invalid(name, "an archive needs `sha256`, 64 hex digits: nothing unpinned")
        return OfferedSource("archive", url, sha256=digest.lower())
    if kind == "npm":
        package, version = source.get("package"), source.get("version")
        if not isinstance(package, str) or not _NPM_NAME.match(package):
            return _invalid(name, f"`package` {package!r} is not an npm package name")
        if version is not None and (
            not isinstance(version, str) or not _NPM_VERSION.match(version)
        ):
            return _invalid(name, f"`version` {version!r} is not an npm version range")
        if source.get("registry") is not None:
            return _unsupported(name, "npm `registry` (the gateway uses the npm configuration's)")
        return OfferedSource("npm", f"{package}@{version}" if version else package)
    return _unsupported(name, f"source {str(kind)[:100]!r}")


def _subfolder(path: str) -> str | None:
    """``path`` as clean relative parts (``./a/b/`` is ``a/b``; ``.`` the root); None when
    absolute, with ``..``, a backslash or an odd name. Symlinks are the installer's check."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if (
        not path.strip()
        or path.startswith("/")
        or len(parts) > 32
        or not all(_PATH_PART.match(p) for p in parts)
    ):
        return None
    return "/".join(parts) or "."


def _git(name: str, url: object, source: dict[str, Any]) -> OfferedSource | list[Diagnostic]:
    try:
        return OfferedSource("git", git_location(url, source.get("sha", source.get("ref"))))
    except ValueError as error:
        return _invalid(name, str(error))


def _invalid(name: str, problem: str) -> list[Diagnostic]:
    return [codes.MARKETPLACE_INVALID(f"plugin {name!r}: {problem}")]


def _unsupported(name: str, what: str) -> list[Diagnostic]:
    return [
        codes.MARKETPLACE_SOURCE_UNSUPPORTED(
            f"plugin {name!r}: {what} is not installed from a marketplace; install the plugin "
            "from its own source"
        )
    ]
