"""``gateway trust ID…`` / ``untrust ID…`` for installed packages: each package's content is
hashed again first (only what changed since the last hash: ``fingerprint_changed``), so trust
covers the content now on disk; then what it declares for the model is read again, from that
package alone — never by evaluating every installed package once per id (16 ids took 38 s)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gateway.base import Diagnostic
from gateway.model import AdapterSet
from gateway.packages import _codes
from gateway.packages._aliases import recorded_source
from gateway.packages._instructions import decision_notices
from gateway.packages._pins import forget_pins
from gateway.store import (
    ContentHashError,
    InstalledPackage,
    StateStore,
    content_hash,
    fingerprint_changed,
)

__all__ = ["Trusted", "trust_packages"]


@dataclass(frozen=True, slots=True)
class Trusted:
    package: InstalledPackage
    """As recorded afterwards (its content hash is the one trust was given for)."""
    diagnostics: list[Diagnostic]
    """What it declares for the model that reads like instructions (when trusted), and why
    its content could not be hashed (then it stays untrusted)."""
    refused: bool = False
    """Trusting it was refused (its files are missing or cannot be hashed): nothing of it
    runs, whatever its record says it was trusted before."""

    @property
    def trusted(self) -> bool:
        return self.package.trusted and not self.refused


def trust_packages(
    home: Path, ids: Iterable[str], trusted: bool, adapters: AdapterSet
) -> list[Trusted]:
    """Trust (or distrust) each installed package, in one store transaction each.
    Raises ``UnknownPackage`` before changing anything when an id is not installed."""
    results: list[Trusted] = []
    with StateStore.open(home) as store:
        packages = [store.get_package(package_id) for package_id in ids]
        for package in packages:
            problem = _rehash(store, package) if trusted else None
            if problem is None:
                store.set_trusted(package.id, trusted)
                if trusted:  # its tools as listed from now on are what the user accepts
                    forget_pins(home, package.id)
            now = store.get_package(package.id)
            said = [problem] if problem is not None else []
            if trusted and problem is None:
                entry = adapters.inspect(now.record.path)
                said += decision_notices(entry, now.record.path, now.granted)
            results.append(Trusted(now, said, refused=trusted and problem is not None))
    return results


def _rehash(store: StateStore, package: InstalledPackage) -> Diagnostic | None:
    """Record the hash of the content on disk (re-reading only what changed); a package
    whose files are gone or cannot be hashed is not trusted, and this says why."""
    record = package.record
    if not record.path.is_dir():
        return _codes.GATE_DEPENDENCY_MISSING(
            f"{record.id}: installed files are missing at {record.path}; not trusted",
            package=record.id,
            hint=f"gateway install {recorded_source(package)}",
        )
    try:
        if fingerprint_changed(record.path, record.hash_cache):
            digest, cache = content_hash(record.path, record.hash_cache)
            store.update_content_hash(record.id, digest, cache)
    except ContentHashError as error:
        return _codes.PACKAGE_CHANGED(
            f"{record.id}: its files cannot be hashed ({error}); not trusted", package=record.id
        )
    return None
