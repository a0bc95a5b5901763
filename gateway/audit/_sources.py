"""Where an audited package comes from: an installed id, a folder, a packed tarball, an npm
spec or a git URL — never installed into the store.

A folder and an installed package are read where they are; anything else is fetched the
way ``gateway install`` fetches (no scripts, no git hooks, the install limits) into a
private temporary folder that is removed when the audit of that package ends.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from gateway.base import GatewayConfig, no_progress
from gateway.packages import (
    ExtractError,
    FetchError,
    InstallLimits,
    SourceError,
    VerifyError,
    extract_tarball,
    fetch,
    offered_package,
    parse_source,
    remove_tree,
    verify_tree,
)
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = ["Located", "locate"]


@dataclass(frozen=True, slots=True)
class Located:
    root: Path
    kind: str
    """installed, local, npm or git."""
    resolved: str


def _static_member(name: str) -> bool:
    """What a static audit reads of a packed package: all of its own files, and of its
    bundled dependencies only what the risk scan looks at (manifests, native addons)."""
    parts = name.split("/")
    if "node_modules" not in parts:
        return True
    last = parts[-1]
    return last in ("package.json", "binding.gyp") or last.endswith(".node") or name.endswith("/")


@contextmanager
def locate(text: str, config: GatewayConfig, *, runnable: bool = True) -> Iterator[Located]:
    """The package ``text`` names, on disk for the duration of the block. ``runnable=False``
    (a static audit): a packed tarball is unpacked without its bundled dependencies' code."""
    if not text.strip():
        raise SourceError("empty source: name a folder, a tarball, an npm spec, a git URL or an id")
    installed = _installed(text, config)
    if installed is not None:
        yield Located(installed, "installed", text)
        return
    try:
        source = parse_source(text)
    except FetchError as error:
        raise SourceError(str(error)) from None
    if source.kind == "local" and source.member is None:
        yield Located(Path(source.location), "local", source.location)
        return
    staging = Path(tempfile.mkdtemp(prefix="gateway-audit-"))
    try:
        limits = InstallLimits()
        tarball = Path(source.location).expanduser()
        if source.kind == "npm" and not runnable and tarball.is_file():
            yield Located(_unpack(tarball, staging, limits), "npm", tarball.name)
            return
        try:
            fetched = fetch(source, staging, home=config.home, limits=limits)
            verify_tree(fetched.root, limits)
            # MARKETPLACE#PLUGIN: the plugin, as install would take it (SourceError says why not).
            source = fetched.source
            fetched = offered_package(source, fetched, staging, config.home, limits, no_progress)
        except (FetchError, VerifyError, OSError) as error:
            raise SourceError(f"cannot fetch {source.describe()}: {error}") from None
        yield Located(fetched.root, source.kind, fetched.resolved)
    finally:
        remove_tree(staging)


def _unpack(archive: Path, staging: Path, limits: InstallLimits) -> Path:
    unpacked = staging / "unpacked"
    try:
        extract_tarball(archive, unpacked, limits, keep=_static_member)
    except (ExtractError, VerifyError) as error:
        raise SourceError(f"cannot unpack {archive.name}: {error}") from None
    tops = list(unpacked.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        raise SourceError(f"{archive.name} is not an npm package tarball (one top folder)")
    return tops[0]


def _installed(text: str, config: GatewayConfig) -> Path | None:
    if Path(text).expanduser().exists() or not (config.home / STATE_FILE).exists():
        return None
    try:
        with StateStore.open(config.home) as store:
            for package in store.list_packages():
                if package.id == text:
                    return package.record.path
    except StoreError:
        return None
    return None
