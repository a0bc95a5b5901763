"""Schema 5: the names a package answers to besides its id, and what its source said of it
(npm's version, the fetched tree's hash) — recorded at install, kept and dropped with it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from gateway.store import STATE_FILE, PackageRecord, StateStore, _schema


def record(package_id: str, **fields: object) -> PackageRecord:
    base: dict[str, object] = {
        "id": package_id, "name": package_id, "version": "1.1.0", "ecosystem": "claude",
        "source": package_id, "source_kind": "npm", "path": Path("/nowhere") / package_id,
        "content_hash": "sha256:" + "a" * 64,
    }  # fmt: skip
    return PackageRecord(**{**base, **fields})  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> StateStore:
    with StateStore.open(tmp_path / "home") as opened:
        yield opened  # type: ignore[misc]


def test_an_alias_resolves_to_its_package(store: StateStore) -> None:
    store.record_install(record("selfish"), requested=(), aliases=["selfish-pipeline"])
    assert store.resolve("selfish-pipeline") == "selfish"
    assert store.resolve("selfish") == "selfish"
    assert store.resolve("selfishness") is None
    assert store.get_package("selfish").aliases == {"selfish-pipeline"}


def test_an_id_wins_over_another_packages_alias(store: StateStore) -> None:
    store.record_install(record("a"), requested=(), aliases=["b"])
    store.record_install(record("b"), requested=())
    assert store.resolve("b") == "b"
    store.record_install(record("c"), requested=(), aliases=["a"])  # never takes an id
    assert store.get_package("c").aliases == frozenset()


def test_the_latest_install_of_a_name_takes_its_alias(store: StateStore) -> None:
    store.record_install(record("one"), requested=(), aliases=["shared"])
    store.record_install(record("two"), requested=(), aliases=["shared"])
    assert store.resolve("shared") == "two"
    assert store.names() == {"one": "one", "two": "two", "shared": "two"}


def test_a_reinstall_replaces_the_aliases_and_an_uninstall_drops_them(store: StateStore) -> None:
    store.record_install(record("p"), requested=(), aliases=["old-name"])
    store.record_install(record("p"), requested=(), aliases=["new-name"])
    assert store.get_package("p").aliases == {"new-name"}
    store.remove_package("p")
    assert store.resolve("new-name") is None


def test_source_pins_are_kept_with_the_record(store: StateStore) -> None:
    pins = {"source_version": "1.4.0", "source_hash": "sha256:" + "b" * 64,
            "source_integrity": "sha512-" + "c" * 86 + "=="}  # fmt: skip
    store.record_install(record("p", **pins), requested=())
    kept = store.get_package("p").record
    assert (kept.source_version, kept.source_hash, kept.source_integrity) == tuple(pins.values())


def test_a_schema_4_store_is_migrated_keeping_its_packages(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:4])
        patch.setattr(_schema, "SCHEMA_VERSION", 4)
        StateStore.open(home).close()
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (4,)
        conn.execute(
            "INSERT INTO packages (id, name, version, ecosystem, source, source_kind, path, "
            "content_hash, installed_at) VALUES ('p', 'p', '1.0.0', 'pi', 'p', 'npm', '/x', "
            "'sha256:0', '2026-01-01T00:00:00+00:00')"
        )
        conn.commit()
    with StateStore.open(home) as store:
        package = store.get_package("p")
        assert (package.record.source_version, package.aliases) == (None, frozenset())
        store.record_install(record("p"), requested=(), aliases=["p-npm"])
        assert store.resolve("p-npm") == "p"


def test_the_member_a_collection_offered_is_kept_with_the_record(store: StateStore) -> None:
    store.record_install(record("p", source="/m#p", source_member="p"), requested=())
    assert store.get_package("p").record.source_member == "p"


def test_a_schema_6_store_is_migrated_with_no_member(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_schema, "MIGRATIONS", _schema.MIGRATIONS[:6])
        patch.setattr(_schema, "SCHEMA_VERSION", 6)
        StateStore.open(home).close()
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        conn.execute(
            "INSERT INTO packages (id, name, version, ecosystem, source, source_kind, path, "
            "content_hash, installed_at, source_hash) VALUES ('p', 'p', '1.0.0', 'claude', "
            "'/m#p', 'local', '/x', 'sha256:0', '2026-01-01T00:00:00+00:00', 'sha256:1')"
        )
        conn.commit()
    with StateStore.open(home) as store:
        record = store.get_package("p").record
        assert (record.source_member, record.source_hash) == (None, "sha256:1")
