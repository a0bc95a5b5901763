"""``gateway outdated``: whether an installed package's source has something newer — an npm
version within the recorded spec (or the registry's latest), new commits on a git source's
recorded ref, changed content in a local folder. Like is compared with like: a folder with
the hash of what was copied from it (before the install step built anything into it, as Nu's
bundles), an npm package by the version npm published (not its format's own, which a Claude
plugin's ``plugin.json`` may say differently). Runs nothing of any package: npm and git are
asked through the same runners the installer uses."""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.base import no_progress
from gateway.packages._aliases import npm_spec_name, recorded_source, source_version
from gateway.packages._npm import NpmSettings, _npm, _run
from gateway.packages._offered import offered_package
from gateway.packages._sources import _GIT_URL, _SCP_LIKE, SourceError, fetch, parse_source
from gateway.packages._tools import FetchError, run_tool
from gateway.packages._verify import InstallLimits, VerifyError, verify_tree
from gateway.store import ContentHashError, InstalledPackage, content_hash

__all__ = ["Outdated", "check_outdated", "npm_version"]

_COMMIT = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True, slots=True)
class Outdated:
    id: str
    kind: str
    current: str
    """The installed version, commit or content hash."""
    available: str | None
    """What is newer (a version, a commit, a content hash), or None when nothing is."""
    install_source: str
    """What ``update`` installs."""
    note: str = ""
    """Why it could not be checked, when it could not."""

    @property
    def outdated(self) -> bool:
        return self.available is not None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "current": self.current,
                "available": self.available, "outdated": self.outdated,
                "note": self.note}  # fmt: skip


def check_outdated(home: Path, package: InstalledPackage, *, latest: bool = False) -> Outdated:
    kind = package.record.source_kind
    try:
        if package.record.source_member is not None:
            return _offered_now(home, package)
        if kind == "local":
            return _local(package)
        if kind == "git":
            return _git(package)
        return _npm_source(home, package, latest)
    except FetchError as error:
        return _unchecked(package, str(error))


def _unchecked(package: InstalledPackage, note: str) -> Outdated:
    record = package.record
    current = record.version or record.content_hash
    return Outdated(record.id, record.source_kind, current, None, recorded_source(package), note)


def _local(package: InstalledPackage) -> Outdated:
    record = package.record
    folder = Path(record.source)
    if not folder.is_dir():
        return _unchecked(package, f"{folder} is gone")
    try:
        digest, _ = content_hash(folder)
    except ContentHashError as error:
        return _unchecked(package, str(error))
    # Recorded before schema 5: only the installed hash, which is the copy's for every
    # format but one whose install step builds into it (Nu).
    copied = record.source_hash or record.content_hash
    newer = digest if digest != copied else None
    return Outdated(record.id, "local", copied, newer, str(folder))


def _offered_now(home: Path, package: InstalledPackage) -> Outdated:
    """A collection's plugin (``MARKETPLACE#PLUGIN``) against what the collection offers
    now, like with like: the files fetched where its current entry says, hashed as the
    installed ones were before the install step (``source_hash``). A moved pin or a new
    marketplace commit that leaves the plugin's files as they were is not newer."""
    record = package.record
    text = recorded_source(package)
    if record.source_hash is None:
        return _unchecked(package, "installed before the plugin's fetched files were hashed")
    limits = InstallLimits()
    try:
        with tempfile.TemporaryDirectory(dir=home) as scratch:
            source = parse_source(text, record.source_kind)
            fetched = fetch(source, Path(scratch), home=home, limits=limits)
            verify_tree(fetched.root, limits)
            fetched = offered_package(source, fetched, Path(scratch), home, limits, no_progress)
            digest, _ = content_hash(fetched.root)
    except (SourceError, VerifyError, ContentHashError) as error:
        return _unchecked(package, str(error))
    newer = digest if digest != record.source_hash else None
    return Outdated(record.id, record.source_kind, record.source_hash, newer, text)


def _git(package: InstalledPackage) -> Outdated:
    source = recorded_source(package)
    location, _, ref = source.partition("#")
    current = package.record.source.rsplit(" (", 1)[-1].rstrip(")")
    if ref and _COMMIT.match(ref):
        return Outdated(package.id, "git", current, None, source, "pinned to a commit")
    if not _GIT_URL.search(location) and not _SCP_LIKE.match(location):
        location = str(Path(location).expanduser().resolve())
    hardening = ["-c", "core.hooksPath=/dev/null", "-c", "credential.helper=",
                 "-c", "protocol.ext.allow=never", "-c", "protocol.file.allow=user"]  # fmt: skip
    wanted = [ref or "HEAD"] if not ref else [f"refs/heads/{ref}", f"refs/tags/{ref}"]
    output = run_tool(["git", *hardening, "ls-remote", "--", location, *wanted,
                       *(f"{w}^{{}}" for w in wanted if w.startswith("refs/tags/"))],
                      None, f"git ls-remote {location}")  # fmt: skip
    found: dict[str, str] = {}
    for line in output.splitlines():
        commit, _, name = line.partition("\t")
        if name:
            found[name] = commit
    head = next((found[name] for name in (f"refs/tags/{ref}^{{}}", *wanted) if name in found), None)
    if head is None:
        return Outdated(package.id, "git", current, None, source, f"{ref or 'HEAD'} not found")
    return Outdated(package.id, "git", current, head if head != current else None, source)


def _npm_source(home: Path, package: InstalledPackage, latest: bool) -> Outdated:
    spec = recorded_source(package)
    record = package.record
    if Path(spec).expanduser().is_file() or spec.endswith((".tgz", ".tar.gz")):
        return _unchecked(package, "a tarball: install a newer one to update")
    registry_spec = spec.removeprefix("npm:")  # `npm:NAME[@RANGE]`, as npm itself takes it
    name = npm_spec_name(registry_spec)
    if name is None:
        return _unchecked(package, "not a registry package")
    asked = name if latest else registry_spec
    versions = _npm_view(home, asked)
    best = max(versions, key=_semver, default=None)
    current = npm_version(package)
    newer = best is not None and _semver(best) > _semver(current or "0")
    install = f"{name}@{best}" if latest and best else spec
    return Outdated(record.id, "npm", current or "", best if newer else None, install)


def npm_version(package: InstalledPackage) -> str | None:
    """The version npm published of an npm-installed package (recorded at install, or read
    from its ``package.json`` when installed before that was recorded)."""
    record = package.record
    return record.source_version or source_version("npm", record.path)


def _npm_view(home: Path, spec: str) -> list[str]:
    """The versions npm resolves ``spec`` to (``npm view SPEC version --json``: the dist-tag
    latest for a bare name, every matching version for a range)."""
    settings = NpmSettings.for_home(home)
    with tempfile.TemporaryDirectory(dir=home) as scratch:
        output = _run(_npm(), ["view", spec, "version", "--json", "--loglevel=error"],
                      Path(scratch), settings, f"npm view {spec}", Path(scratch))  # fmt: skip
    try:
        found = json.loads(output) if output.strip() else []
    except ValueError:
        raise FetchError(f"npm view {spec}: not JSON") from None
    items = found if isinstance(found, list) else [found]
    return [v for v in items if isinstance(v, str)]


def _semver(version: str) -> tuple[tuple[int, ...], int, str]:
    core, _, pre = version.partition("-")
    numbers = tuple(int(p) if p.isdigit() else 0 for p in core.split("+")[0].split("."))
    return numbers, 0 if pre else 1, pre
