"""A marketplace plugin's object ``source`` as a source the installer fetches with its own
git and npm fetchers: ``github`` (``repo``, ``ref``, ``sha``), ``url`` (a git URL, ``ref``,
``sha``), ``npm`` (``package``, ``version``). Package-controlled text: only https/ssh git
URLs and npm registry names pass, never a local path, a file URL or a tarball."""

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


def remote_source(name: str, source: dict[str, Any]) -> OfferedSource | list[Diagnostic]:
    kind = source.get("source")
    if kind == "github":
        repo = source.get("repo")
        if not isinstance(repo, str) or not GITHUB_REPO.match(repo):
            return _invalid(name, f"`repo` {repo!r} is not OWNER/NAME")
        return _git(name, f"https://github.com/{repo}.git", source)
    if kind == "url":
        return _git(name, source.get("url"), source)
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
