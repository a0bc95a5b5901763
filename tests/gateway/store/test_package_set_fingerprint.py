"""The package set's fingerprint a running server follows: read from the store in one
snapshot (``package_set_fingerprint``), and the same of the packages a caller read
(``package_set_digest``) — a served gateway records the digest of what it evaluated and
compares the store's fingerprint with it, so the two must agree on every state, and each
change that decides what runs must change both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gateway.store import StateStore, package_set_digest, package_set_fingerprint
from tests.gateway.store.test_aliases import record


def _read(home: Path) -> str:
    with StateStore.open(home) as store:
        return package_set_digest(store.list_packages(), store.preferred())


def test_the_digest_of_what_was_read_is_the_stores_fingerprint_after_each_change(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    StateStore.open(home).close()
    changes: list[Callable[[StateStore], object]] = [
        lambda s: s.record_install(record("b"), requested=("env:B", "network:b.org")),
        lambda s: s.record_install(record("a"), requested=()),
        lambda s: s.grant("b", ["network:b.org", "env:B"], ["env:B", "network:b.org"]),
        lambda s: s.revoke("b", ["env:B"]),
        lambda s: s.set_trusted("a", True),
        lambda s: s.set_enabled("a", True),
        lambda s: s.set_group(["a", "b"], "shared"),
        lambda s: s.set_preferred(["pi:zeta", "b", "a"], extensions=["pi:zeta"]),
        lambda s: s.set_preferred(["a", "b"]),
        lambda s: s.record_install(record("a", version="1.2.0"), requested=()),
        lambda s: s.update_content_hash("b", "sha256:" + "b" * 64, s.get_package("b").record.hash_cache),
        lambda s: s.remove_package("a"),
    ]  # fmt: skip
    seen = [package_set_fingerprint(home)]
    assert seen[0] == _read(home)  # an empty store
    for change in changes:
        with StateStore.open(home) as store:
            change(store)
        seen.append(package_set_fingerprint(home))
        assert seen[-1] == _read(home)
    assert None not in seen and len(set(seen)) == len(seen)  # each changed it


def test_a_write_that_decides_nothing_that_runs_leaves_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with StateStore.open(home) as store:
        store.record_install(record("a"), requested=())
    before = package_set_fingerprint(home)
    with StateStore.open(home) as store:
        store.trust_workspace(tmp_path, True)
        store.set_enabled("a", False)  # as it was
    assert package_set_fingerprint(home) == before == _read(home)
