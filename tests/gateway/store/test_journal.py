"""The at-most-once journal in the state store: written before a call, finished after; a
call whose gateway is gone becomes indeterminate and blocks the same call until resolved."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gateway.store import SCHEMA_VERSION, CallJournal, StateStore, StoreError, process_token


@pytest.fixture
def store(tmp_path: Path):
    with StateStore.open(tmp_path) as opened:
        yield opened


def dead_token() -> str:
    """The token of a process that has exited."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return f"{done.stdout.strip()}:1"


def orphan(store: StateStore, journal: CallJournal, arguments: dict) -> str:
    call = journal.begin("pkg", "send", arguments, "s1")
    with store._transaction(write=True) as conn:
        conn.execute("UPDATE call_journal SET owner = ? WHERE id = ?", (dead_token(), call))
    return call


def test_the_schema_has_the_journal(store: StateStore) -> None:
    assert SCHEMA_VERSION >= 2


def test_a_call_is_running_until_finished(store: StateStore) -> None:
    journal = CallJournal(store)
    call = journal.begin("pkg", "send", {"to": "bob"}, "s1")
    assert journal.entry(call).state == "running"
    assert journal.entry(call).owner == process_token()
    journal.finish(call, "ok")
    entry = journal.entry(call)
    assert (entry.state, entry.outcome) == ("done", "ok") and entry.finished_at is not None


def test_a_running_call_of_a_live_gateway_is_not_an_orphan(store: StateStore) -> None:
    journal = CallJournal(store)
    journal.begin("pkg", "send", {"to": "bob"}, "s1")
    assert journal.sweep() == []
    assert journal.blocking("pkg", "send", {"to": "bob"}) is None


def test_a_running_call_of_a_gone_gateway_becomes_indeterminate(store: StateStore) -> None:
    journal = CallJournal(store)
    call = orphan(store, journal, {"to": "bob"})
    (entry,) = journal.sweep()
    assert (entry.id, entry.state) == (call, "indeterminate")


def test_an_indeterminate_call_blocks_only_the_same_tool_with_the_same_arguments(
    store: StateStore,
) -> None:
    journal = CallJournal(store)
    call = orphan(store, journal, {"to": "bob", "cc": ["ada"]})
    assert journal.blocking("pkg", "send", {"cc": ["ada"], "to": "bob"}).id == call  # type: ignore[union-attr]
    assert journal.blocking("pkg", "send", {"to": "eve"}) is None
    assert journal.blocking("pkg", "post", {"to": "bob", "cc": ["ada"]}) is None
    assert journal.blocking("other", "send", {"to": "bob", "cc": ["ada"]}) is None


def test_resolving_unblocks_and_is_recorded(store: StateStore) -> None:
    journal = CallJournal(store)
    call = orphan(store, journal, {"to": "bob"})
    journal.sweep()
    resolved = journal.resolve(call, "not_run")
    assert (resolved.state, resolved.outcome) == ("resolved", "not_run")
    assert journal.blocking("pkg", "send", {"to": "bob"}) is None
    with pytest.raises(StoreError, match="resolved, not indeterminate"):
        journal.resolve(call, "ran")


def test_a_pid_reused_by_another_process_is_not_the_gateway(store: StateStore) -> None:
    """Same pid, another start time: the gateway that wrote the row is gone."""
    journal = CallJournal(store)
    call = journal.begin("pkg", "send", {}, "s1")
    pid = process_token().split(":")[0]
    with store._transaction(write=True) as conn:
        conn.execute("UPDATE call_journal SET owner = ? WHERE id = ?", (f"{pid}:0", call))
    assert [e.id for e in journal.sweep()] == [call]


def test_the_journal_survives_reopening(tmp_path: Path) -> None:
    with StateStore.open(tmp_path) as store:
        call = CallJournal(store).begin("pkg", "send", {"x": 1}, "s1")
    with StateStore.open(tmp_path) as store:
        assert CallJournal(store).entry(call).state == "running"
