"""Schema 6: the packages the user prefers in name clashes (``gateway prefer``), strongest
first; an uninstalled one stays preferred (the load says it is missing)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from gateway.store import (
    STATE_FILE,
    StateStore,
    UnknownPackage,
    _schema,
    package_set_fingerprint,
    read_state_digest,
)
from tests.gateway.store.test_aliases import record


@pytest.fixture
def store(tmp_path: Path) -> StateStore:
    with StateStore.open(tmp_path / "home") as opened:
        yield opened  # type: ignore[misc]


def test_the_preference_is_kept_in_its_order_and_replaced_whole(store: StateStore) -> None:
    for package_id in ("a", "b", "c"):
        store.record_install(record(package_id), requested=())
    assert store.preferred() == []
    store.set_preferred(["c", "a", "c"])
    assert store.preferred() == ["c", "a"]
    store.set_preferred(["b"])
    assert store.preferred() == ["b"]
    store.set_preferred([])
    assert store.preferred() == []


def test_an_unknown_id_changes_nothing(store: StateStore) -> None:
    store.record_install(record("a"), requested=())
    store.set_preferred(["a"])
    with pytest.raises(UnknownPackage):
        store.set_preferred(["a", "zz"])
    assert store.preferred() == ["a"]


def test_a_discovered_extension_is_kept_without_an_installed_package(store: StateStore) -> None:
    store.record_install(record("a"), requested=())
    store.set_preferred(["pi:zeta", "a"], extensions=["pi:zeta"])
    assert store.preferred() == ["pi:zeta", "a"]
    with pytest.raises(UnknownPackage):  # the control: only the ids named as extensions
        store.set_preferred(["pi:zeta", "a"])


def test_an_uninstalled_package_stays_preferred(store: StateStore) -> None:
    store.record_install(record("a"), requested=())
    store.set_preferred(["a"])
    store.remove_package("a")
    assert store.preferred() == ["a"]


def test_a_running_server_sees_the_preference_change(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with StateStore.open(home) as opened:
        opened.record_install(record("a"), requested=())
    before = package_set_fingerprint(home)
    with StateStore.open(home) as opened:
        opened.set_preferred(["a"])
    assert package_set_fingerprint(home) not in (None, before)


def test_a_schema_5_store_is_migrated_keeping_its_packages(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:5])
        patch.setattr(_schema, "SCHEMA_VERSION", 5)
        StateStore.open(home).close()
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (5,)
        # A row as schema 5 wrote it (record_install writes the columns of the newest).
        conn.execute(
            "INSERT INTO packages (id, name, version, ecosystem, source, source_kind, path, "
            "content_hash, installed_at) VALUES ('p', 'p', '1.0.0', 'pi', 'p', 'npm', '/x', "
            "'sha256:0', '2026-01-01T00:00:00+00:00')"
        )
        conn.commit()
    assert package_set_fingerprint(home) is not None  # read-only, before the migration
    with StateStore.open(home) as migrated:
        assert [p.record.id for p in migrated.list_packages()] == ["p"]
        assert migrated.preferred() == []
        migrated.set_preferred(["p"])
        assert migrated.preferred() == ["p"]
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (_schema.SCHEMA_VERSION,)


def test_a_warm_session_sees_the_preference_change(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with StateStore.open(home) as opened:
        opened.record_install(record("a"), requested=())
    before = read_state_digest(home)
    with StateStore.open(home) as opened:
        opened.set_preferred(["a"])
    assert read_state_digest(home) != before
