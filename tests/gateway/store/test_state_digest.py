"""The digest of the store's decisions a warm session compares before each command: read
afresh (``read_state_digest``) or kept open across checks (``StateDigestReader``), which
must say the same on every state and read the tables again whenever the store may have
changed — a commit by any other connection, another file in its place."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from gateway.store import (
    STATE_FILE,
    CallJournal,
    StateDigestReader,
    StateStore,
    read_state_digest,
)
from tests.gateway.store.test_aliases import record


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    with StateStore.open(home) as store:
        store.record_install(record("a"), requested=("env:A",))
    return home


@pytest.fixture
def reader(home: Path):
    reader = StateDigestReader(home)
    yield reader
    reader.close()


def test_each_decision_another_connection_commits_is_read(
    home: Path, reader: StateDigestReader
) -> None:
    seen = [reader.read()]
    assert seen[0] == read_state_digest(home)
    for change in (
        lambda s: s.set_enabled("a", True),
        lambda s: s.grant("a", ["env:A"], ["env:A"]),
        lambda s: s.set_trusted("a", True),
        lambda s: s.record_install(record("b"), requested=()),
        lambda s: s.set_group(["a", "b"], "shared"),
    ):
        with StateStore.open(home) as store:
            change(store)
        seen.append(reader.read())
        assert seen[-1] == read_state_digest(home)
    assert len(set(seen)) == len(seen)  # each changed it


def test_a_store_no_one_committed_to_is_not_read_again(
    home: Path, reader: StateDigestReader
) -> None:
    first = reader.read()
    # From other threads too, as the session's worker threads ask.
    threads = [threading.Thread(target=reader.read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reader.read() == first
    assert reader.reads == 1


def test_a_call_journal_write_is_read_again_and_changes_nothing(
    home: Path, reader: StateDigestReader
) -> None:
    before = reader.read()
    with StateStore.open(home) as store:
        CallJournal(store).begin("a", "send", {"to": "bob"}, "s1")
    assert reader.read() == before == read_state_digest(home)
    assert reader.reads == 2


def test_another_file_put_in_its_place_is_read(
    tmp_path: Path, home: Path, reader: StateDigestReader
) -> None:
    reader.read()
    other = tmp_path / "other"
    shutil.copytree(home, other)
    with StateStore.open(other) as store:
        store.set_enabled("a", True)
    os.replace(other / STATE_FILE, home / STATE_FILE)
    for suffix in ("-wal", "-shm"):
        (home / (STATE_FILE + suffix)).unlink(missing_ok=True)
    assert reader.read() == read_state_digest(home) == read_state_digest(other.parent / "home")


def test_a_store_removed_then_made_again_is_read(home: Path, reader: StateDigestReader) -> None:
    reader.read()
    for name in os.listdir(home):
        if name.startswith(STATE_FILE):
            (home / name).unlink()
    assert reader.read() == "" == read_state_digest(home)
    with StateStore.open(home) as store:
        store.record_install(record("c"), requested=())
    assert reader.read() == read_state_digest(home) != ""


def test_a_file_that_is_no_store_is_unreadable_until_mended(
    home: Path, reader: StateDigestReader
) -> None:
    good = reader.read()
    saved = (home / STATE_FILE).read_bytes()
    for suffix in ("-wal", "-shm"):
        (home / (STATE_FILE + suffix)).unlink(missing_ok=True)
    (home / STATE_FILE).write_bytes(b"not a database at all, but long enough to be read")
    assert reader.read() == "unreadable" == read_state_digest(home)
    (home / STATE_FILE).write_bytes(saved)
    assert reader.read() == good
