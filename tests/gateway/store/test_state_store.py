"""StateStore behaviour: packages, trust, grants, workspaces, opening and migrations."""

from __future__ import annotations

import sqlite3
import stat
import threading
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gateway.store import (
    SCHEMA_VERSION,
    STATE_FILE,
    HashCache,
    PackageRecord,
    PermissionNotRequested,
    StateStore,
    StoreBusy,
    StoreCorrupt,
    StoreError,
    StoreTooNew,
    UnknownPackage,
    _connection,
    _schema,
    content_hash,
)

REQUESTED = frozenset({"net", "fs.read", "env:API_KEY"})


def record(pid: str = "pi:demo", chash: str = "sha256:" + "a" * 64, **kw: object) -> PackageRecord:
    fields: dict[str, object] = {
        "id": pid,
        "name": pid.split(":")[-1],
        "version": "1.0.0",
        "ecosystem": "pi",
        "source": "./demo",
        "source_kind": "local",
        "path": Path("/opt/gateway/packages") / pid,
        "content_hash": chash,
    }
    fields.update(kw)
    return PackageRecord(**fields)  # type: ignore[arg-type]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def store(home: Path) -> StateStore:
    with StateStore.open(home) as s:
        yield s  # type: ignore[misc]


def raw(home: Path, sql: str) -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        return conn.execute(sql).fetchall()


# -- opening ---------------------------------------------------------------------------


def test_open_creates_private_home_and_current_schema(home: Path) -> None:
    with StateStore.open(home) as s:
        assert s.path == home / STATE_FILE
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert raw(home, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert raw(home, "PRAGMA journal_mode") == [("wal",)]
    assert raw(home, "PRAGMA application_id") == [(_schema.APPLICATION_ID,)]
    with StateStore.open(home) as s:  # reopening is a no-op
        assert s.list_packages() == []


def test_closed_store_refuses_calls(home: Path) -> None:
    s = StateStore.open(home)
    s.close()
    s.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        s.list_packages()


def test_home_that_is_a_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "home").write_text("")
    with pytest.raises(StoreError, match="cannot create the gateway home"):
        StateStore.open(tmp_path / "home")


def test_write_lock_held_too_long_is_store_busy(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_connection, "BUSY_TIMEOUT_S", 0.05)
    with (
        StateStore.open(home) as s,
        closing(sqlite3.connect(s.path, isolation_level=None)) as other,
    ):
        s.record_install(record(), requested=REQUESTED)
        other.execute("BEGIN IMMEDIATE")  # another process in the middle of a change
        with pytest.raises(StoreBusy, match="locked"):
            s.set_enabled("pi:demo", False)
        other.execute("ROLLBACK")
        s.set_enabled("pi:demo", False)  # and the store is still usable afterwards
        assert not s.get_package("pi:demo").enabled


def write_garbage(path: Path) -> bytes:
    data = b"this is not a database\n" * 100
    path.write_bytes(data)
    return data


def damage_pages(path: Path) -> bytes:
    with StateStore.open(path.parent) as s:
        for i in range(200):
            s.record_install(record(f"pi:p{i:03}", source="x" * 500), requested=set())
    data = bytearray(path.read_bytes())
    assert len(data) > 5 * 4096
    data[2 * 4096 : 5 * 4096] = b"\xa5" * (3 * 4096)  # keep the header, wreck the b-tree
    path.write_bytes(bytes(data))
    return bytes(data)


def foreign_database(path: Path) -> bytes:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
        conn.commit()
    return path.read_bytes()


@pytest.mark.parametrize(
    ("make", "detail"),
    [
        (write_garbage, "not an SQLite database"),
        (damage_pages, "malformed|integrity check failed"),
        (foreign_database, "not a gateway state store"),
    ],
    ids=["garbage", "damaged-pages", "foreign-db"],
)
def test_unusable_file_is_reported_and_left_alone(
    home: Path, make: Callable[[Path], bytes], detail: str
) -> None:
    home.mkdir()
    path = home / STATE_FILE
    before = make(path)
    with pytest.raises(StoreCorrupt, match=detail) as info:
        StateStore.open(home)
    assert info.value.path == path
    assert str(path) in str(info.value) and "has not been modified" in str(info.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in home.iterdir()) == [STATE_FILE]  # no -wal/-shm left over


def test_newer_schema_is_reported_and_left_alone(home: Path) -> None:
    home.mkdir()
    path = home / STATE_FILE
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(f"PRAGMA application_id = {_schema.APPLICATION_ID}")
        conn.execute("PRAGMA user_version = 999")
    before = path.read_bytes()
    with pytest.raises(StoreTooNew) as info:
        StateStore.open(home)
    assert (info.value.found, info.value.supported) == (999, SCHEMA_VERSION)
    assert "Upgrade the gateway" in str(info.value) and str(path) in str(info.value)
    assert path.read_bytes() == before


def empty_file(path: Path) -> None:
    path.write_bytes(b"")


def tableless_database(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE scratch (x)")
        conn.execute("DROP TABLE scratch")
        conn.commit()
    assert path.stat().st_size > 0


@pytest.mark.parametrize("make", [empty_file, tableless_database])
def test_version_zero_file_is_migrated(home: Path, make: Callable[[Path], None]) -> None:
    home.mkdir()
    make(home / STATE_FILE)
    with StateStore.open(home) as s:
        s.record_install(record(), requested=REQUESTED)
    assert raw(home, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    tables = {row[0] for row in raw(home, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"packages", "grants", "workspaces"} <= tables


def test_failed_migration_rolls_back_whole_step(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with StateStore.open(home) as s:
        s.record_install(record(), requested=REQUESTED)

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x)")
        conn.execute("ALTER TABLE no_such_table ADD COLUMN y")

    monkeypatch.setattr(_schema, "MIGRATIONS", [*_schema.MIGRATIONS, broken])
    monkeypatch.setattr(_schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match=f"left at version {SCHEMA_VERSION}"):
        StateStore.open(home)
    monkeypatch.undo()
    assert raw(home, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert raw(home, "SELECT name FROM sqlite_master WHERE name = 'half_done'") == []
    with StateStore.open(home) as s:
        assert [p.id for p in s.list_packages()] == ["pi:demo"]


# -- packages, trust, grants -----------------------------------------------------------


def test_new_install_is_disabled_untrusted_and_ungranted(store: StateStore, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "index.js").write_text("1")
    chash, cache = content_hash(tree)
    result = store.record_install(record(chash=chash, hash_cache=cache), requested=REQUESTED)
    assert (result.created, result.hash_changed, result.trust_revoked) == (True, False, False)
    pkg = store.get_package("pi:demo")
    assert pkg == result.package
    assert (pkg.enabled, pkg.trusted, pkg.granted) == (False, False, frozenset())
    assert pkg.record.hash_cache == cache and pkg.record.content_hash == chash
    assert pkg.record.installed_at is not None and pkg.record.installed_at.tzinfo is not None


def test_explicit_install_time_is_kept(store: StateStore) -> None:
    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    store.record_install(record(installed_at=when), requested=REQUESTED)
    assert store.get_package("pi:demo").record.installed_at == when


def test_reinstall_with_same_hash_keeps_decisions(store: StateStore) -> None:
    store.record_install(record(), requested=REQUESTED)
    store.set_trusted("pi:demo", True)
    store.grant("pi:demo", {"net", "fs.read"}, REQUESTED)
    store.set_enabled("pi:demo", False)
    result = store.record_install(record(version="1.0.1"), requested={"net"})
    assert (result.created, result.hash_changed, result.trust_revoked) == (False, False, False)
    assert result.dropped_grants == {"fs.read"}  # no longer requested
    pkg = result.package
    assert (pkg.trusted, pkg.enabled, pkg.granted) == (True, False, frozenset({"net"}))
    assert pkg.record.version == "1.0.1"


def test_reinstall_with_new_hash_revokes_trust_only(store: StateStore) -> None:
    store.record_install(record(), requested=REQUESTED)
    store.set_trusted("pi:demo", True)
    store.grant("pi:demo", {"net"}, REQUESTED)
    result = store.record_install(record(chash="sha256:" + "b" * 64), requested=REQUESTED)
    assert (result.hash_changed, result.trust_revoked) == (True, True)
    assert result.dropped_grants == frozenset()
    pkg = store.get_package("pi:demo")
    assert (pkg.trusted, pkg.trusted_hash, pkg.granted) == (False, None, frozenset({"net"}))
    # an untrusted package changing content has no trust to revoke
    again = store.record_install(record(chash="sha256:" + "c" * 64), requested=REQUESTED)
    assert (again.hash_changed, again.trust_revoked) == (True, False)


def test_trust_is_bound_to_the_content_hash(store: StateStore) -> None:
    old, new = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    store.record_install(record(chash=old), requested=REQUESTED)
    assert not store.is_trusted("pi:demo", old)
    store.set_trusted("pi:demo", True)
    assert store.get_package("pi:demo").trusted_hash == old
    assert store.is_trusted("pi:demo", old) and not store.is_trusted("pi:demo", new)
    store.set_trusted("pi:demo", False)
    assert not store.is_trusted("pi:demo", old)


def test_update_content_hash_revokes_trust_on_change(store: StateStore) -> None:
    old, new = "sha256:" + "a" * 64, "sha256:" + "b" * 64
    store.record_install(record(chash=old), requested=REQUESTED)
    store.set_trusted("pi:demo", True)
    assert store.update_content_hash("pi:demo", old, HashCache()) is False
    assert store.is_trusted("pi:demo", old)
    assert store.update_content_hash("pi:demo", new, HashCache()) is True
    pkg = store.get_package("pi:demo")
    assert (pkg.record.content_hash, pkg.trusted) == (new, False)


def test_only_requested_permissions_can_be_granted(store: StateStore) -> None:
    store.record_install(record(), requested=REQUESTED)
    with pytest.raises(PermissionNotRequested, match="shell") as info:
        store.grant("pi:demo", {"net", "shell"}, REQUESTED)
    assert info.value.permissions == {"shell"}
    assert store.granted("pi:demo") == frozenset()  # all or nothing
    assert store.grant("pi:demo", ["net", "fs.read"], REQUESTED) == {"net", "fs.read"}
    assert store.grant("pi:demo", ["net"], REQUESTED) == {"net", "fs.read"}  # idempotent
    assert store.revoke("pi:demo", {"net", "never-granted"}) == {"fs.read"}
    assert store.granted("pi:demo") == {"fs.read"}
    with pytest.raises(ValueError):
        store.grant("pi:demo", "net", REQUESTED)  # a bare string is not a set of names


def test_remove_package_removes_its_decisions(store: StateStore, home: Path) -> None:
    store.record_install(record(), requested=REQUESTED)
    store.record_install(record("nu:other"), requested=REQUESTED)
    store.set_trusted("pi:demo", True)
    store.grant("pi:demo", {"net"}, REQUESTED)
    store.remove_package("pi:demo")
    assert [p.id for p in store.list_packages()] == ["nu:other"]
    assert raw(home, "SELECT * FROM grants") == []
    fresh = store.record_install(record(), requested=REQUESTED)
    assert fresh.created and not fresh.package.trusted and not fresh.package.granted


def test_list_packages_is_sorted(store: StateStore) -> None:
    for pid in ("z:1", "a:1", "m:1"):
        store.record_install(record(pid), requested=set())
    assert [p.id for p in store.list_packages()] == ["a:1", "m:1", "z:1"]


@pytest.mark.parametrize(
    "call",
    [
        lambda s: s.get_package("nope"),
        lambda s: s.remove_package("nope"),
        lambda s: s.set_trusted("nope", True),
        lambda s: s.is_trusted("nope", "sha256:x"),
        lambda s: s.grant("nope", {"net"}, {"net"}),
        lambda s: s.revoke("nope", {"net"}),
        lambda s: s.granted("nope"),
        lambda s: s.set_enabled("nope", False),
        lambda s: s.update_content_hash("nope", "sha256:x", HashCache()),
    ],
)
def test_unknown_package_id(store: StateStore, call: Callable[[StateStore], object]) -> None:
    with pytest.raises(UnknownPackage, match="nope"):
        call(store)


def test_invalid_records_are_rejected() -> None:
    with pytest.raises(ValueError):
        record(source_kind="ftp")
    with pytest.raises(ValueError):
        record(pid="")


def test_store_can_be_shared_by_threads(store: StateStore) -> None:
    perms = {f"p{i}" for i in range(40)}
    store.record_install(record(), requested=perms)
    threads = [
        threading.Thread(target=lambda p=p: store.grant("pi:demo", {p}, perms)) for p in perms
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.granted("pi:demo") == perms


# -- workspaces ------------------------------------------------------------------------


def test_workspace_trust_inherits_from_nearest_decision(store: StateStore, tmp_path: Path) -> None:
    project = tmp_path / "code" / "project"
    vendored = project / "vendor" / "lib"
    vendored.mkdir(parents=True)
    assert not store.is_workspace_trusted(project)  # default: untrusted
    store.trust_workspace(tmp_path / "code", True)
    assert store.is_workspace_trusted(vendored)
    store.trust_workspace(project / "vendor", False)
    assert not store.is_workspace_trusted(vendored)
    assert store.is_workspace_trusted(project)
    decision = store.workspace_decision(vendored)
    assert decision is not None and decision.path == (project / "vendor").resolve()
    assert store.forget_workspace(project / "vendor") is True
    assert store.forget_workspace(project / "vendor") is False
    assert store.is_workspace_trusted(vendored)
    assert [w.path for w in store.list_workspaces()] == [(tmp_path / "code").resolve()]


def test_workspace_paths_are_resolved(
    store: StateStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    store.trust_workspace(tmp_path / "alias", True)
    assert store.is_workspace_trusted(real / "sub")
    monkeypatch.chdir(real)
    assert store.is_workspace_trusted(".")
    [entry] = store.list_workspaces()
    assert entry.path == real.resolve() and entry.trusted and entry.decided_at.tzinfo is not None


def test_a_reinstall_keeps_the_first_install_time_the_load_order_goes_by(store) -> None:
    from datetime import UTC, datetime

    first = datetime(2026, 1, 1, tzinfo=UTC)
    store.record_install(record(installed_at=first), requested=REQUESTED)
    store.record_install(
        record(chash="sha256:" + "b" * 64, installed_at=datetime(2026, 6, 1, tzinfo=UTC)),
        requested=REQUESTED,
    )
    assert store.get_package("pi:demo").record.installed_at == first
