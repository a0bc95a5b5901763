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

from ..config import GatewayConfig
from ..packages import (
    FetchError,
    InstallLimits,
    VerifyError,
    fetch,
    parse_source,
    remove_tree,
    verify_tree,
)
from ..store import STATE_FILE, StateStore, StoreError

__all__ = ["Located", "SourceError", "locate"]


class SourceError(Exception):
    """The package cannot be fetched or read; ``str()`` says why."""


@dataclass(frozen=True, slots=True)
class Located:
    root: Path
    kind: str
    """installed, local, npm or git."""
    resolved: str


@contextmanager
def locate(text: str, config: GatewayConfig) -> Iterator[Located]:
    """The package ``text`` names, on disk for the duration of the block."""
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
    if source.kind == "local":
        yield Located(Path(source.location), "local", source.location)
        return
    staging = Path(tempfile.mkdtemp(prefix="gateway-audit-"))
    try:
        limits = InstallLimits()
        try:
            fetched = fetch(source, staging, home=config.home, limits=limits)
            verify_tree(fetched.root, limits)
        except (FetchError, VerifyError, OSError) as error:
            raise SourceError(f"cannot fetch {source.describe()}: {error}") from None
        yield Located(fetched.root, source.kind, fetched.resolved)
    finally:
        remove_tree(staging)


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
