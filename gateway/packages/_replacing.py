"""What an install does to the package installed under its id: a reinstall from the same
source (same ecosystem, same folder, git repository, npm name or marketplace's plugin — the
ref or version aside) refreshes it and keeps the user's decisions; a package of another
ecosystem or source is refused (``install.id_taken``) unless the caller replaces it on
purpose (``install --replace``), and then it is installed anew, keeping nothing of the other.

An id names one package: two cannot both be installed under it, so the choice is the
user's to make. (An id that was only an alias of another package — its npm or folder name —
is no clash: the id wins and the install says so, ``install.name_shadowed``.)
"""

from __future__ import annotations

import contextlib
import shlex
from pathlib import Path
from typing import Literal

from gateway.base import Diagnostic
from gateway.model import CatalogEntry
from gateway.packages import _codes
from gateway.packages._aliases import npm_manifest, npm_spec_name
from gateway.packages._rewrites import HOOKS_REWRITE
from gateway.packages._sources import Source
from gateway.packages.environment import env_grant_name
from gateway.sandbox import SANDBOX_PERMISSIONS, is_sandbox_grant
from gateway.store import (
    STATE_FILE,
    InstalledPackage,
    InstallResult,
    PackageRecord,
    StateStore,
    UnknownPackage,
)

__all__ = [
    "OtherSource",
    "describe_installed",
    "id_taken",
    "installed_under",
    "record_install",
]

OtherSource = Literal["refuse", "replace", "reinstall"]
"""What ``install`` does when its package's id is installed from another ecosystem or
source: refuse it (the default), replace that package (``--replace``), or reinstall under
the id as before (``update`` and ``sync``, which reinstall the package recorded there)."""

_KIND_WORDS = {"local": "a folder", "git": "a git repository", "npm": "npm"}


def installed_under(
    home: Path, entry: CatalogEntry, source: Source, root: Path, other_source: OtherSource
) -> tuple[InstalledPackage | None, Path | None]:
    """(the package of another ecosystem or source installed under ``entry.id``, the
    folder of the version installed there); asked under the package's lock. ``root``: the
    fetched package, whose npm name an npm source is known by."""
    if not (home / STATE_FILE).exists():
        return None, None
    with StateStore.open(home) as store, contextlib.suppress(UnknownPackage):
        installed = store.get_package(entry.id)
        same = other_source == "reinstall" or _same_source(
            installed.record, entry, source, root)  # fmt: skip
        return (None if same else installed), installed.record.path
    return None, None


def describe_installed(record: PackageRecord) -> str:
    """Which package holds an id, in words: "the nimlet package notes 1.0 from /x (a
    folder)"."""
    version = f" {record.version}" if record.version else ""
    kind = _KIND_WORDS.get(record.source_kind, record.source_kind)
    kind = f"its marketplace: {kind}" if record.source_member else kind
    return f"the {record.ecosystem} package {record.id}{version} from {record.source} ({kind})"


def id_taken(installed: InstalledPackage, entry: CatalogEntry, source: Source) -> Diagnostic:
    given = source.describe()
    version = f" {entry.version}" if entry.version else ""
    return _codes.INSTALL_ID_TAKEN(
        f"id {entry.id!r} is taken by {describe_installed(installed.record)}; this is the "
        f"{entry.ecosystem} package {entry.id}{version} from {given}. Nothing was installed",
        package=entry.id,
        hint=f"replace it: gateway install {shlex.quote(given)} --replace (nothing of it is "
        f"kept: trust, grants, secrets); or uninstall it first: gateway uninstall "
        f"{shlex.quote(entry.id)}",
    )


def record_install(
    home: Path,
    entry: CatalogEntry,
    record: PackageRecord,
    aliases: frozenset[str],
    *,
    anew: bool,
) -> tuple[InstallResult, Path | None]:
    """The placed install recorded in the store: (the result, the version it replaced).
    ``anew``: it replaces another package (``--replace``), of which it keeps nothing."""
    with StateStore.open(home) as store:
        previous = _installed_path(store, entry.id)
        # A reinstall keeps the sandbox grants and hooks.rewrite too (any package may be
        # granted them, requested or not).
        keep = {p.name for p in entry.permissions} | set(SANDBOX_PERMISSIONS) | {HOOKS_REWRITE}
        # And what the user granted by name — variables passed through (env:NAME), grants
        # that carry one (network:HOST, workspace.write:PATH): consent given to the package.
        named = _granted_before(store, entry.id)
        keep |= {p for p in named if env_grant_name(p) or is_sandbox_grant(p)}
        result = store.record_install(record, requested=keep, aliases=aliases, anew=anew)
    return result, previous


def _installed_path(store: StateStore, package_id: str) -> Path | None:
    with contextlib.suppress(UnknownPackage):
        return store.get_package(package_id).record.path
    return None


def _granted_before(store: StateStore, package_id: str) -> frozenset[str]:
    with contextlib.suppress(UnknownPackage):
        return store.granted(package_id)
    return frozenset()


def _same_source(record: PackageRecord, entry: CatalogEntry, source: Source, root: Path) -> bool:
    if (record.ecosystem, record.source_kind, record.source_member) != (
        entry.ecosystem, source.kind, source.member):  # fmt: skip
        return False
    if source.kind == "npm":
        return _npm_name(record.path, record.source) == _npm_name(root, source.location)
    if source.kind == "git":
        return _git_location(record.source) == _plain_url(source.location)
    # A folder (or a marketplace's plugin in one): as described, with what was resolved
    # (a plugin the marketplace fetched from elsewhere) after it in parentheses.
    described = source.describe()
    return record.source == described or record.source.startswith(f"{described} (")


def _npm_name(root: Path, spec: str) -> str:
    """The npm package's name (its ``package.json``), else the name its spec gives (the
    spec itself, a tarball's path, when it names none)."""
    name = npm_manifest(root).get("name")
    if isinstance(name, str) and name:
        return name
    spec = spec.split(" (", 1)[0].removeprefix("npm:")
    return npm_spec_name(spec) or spec


def _git_location(described: str) -> str:
    """The repository of a recorded git source: ``URL[#REF[#NAME]] (COMMIT…)``."""
    location, hash_sign, _ = described.partition("#")
    if not hash_sign:
        location = location.rpartition(" (")[0] or location
    return _plain_url(location)


def _plain_url(url: str) -> str:
    """One spelling of a repository: no ``git+``, trailing ``/`` or ``.git``."""
    return url.removeprefix("git+").rstrip("/").removesuffix(".git")
