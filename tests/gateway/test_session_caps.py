"""What extensions put into a session is capped: a flood of entries or notifications
cannot fill memory or the disk, and what was dropped is counted and said once."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from gateway.base import Diagnostics
from gateway.model import MAX_ENTRY_BYTES, MAX_NOTIFICATIONS, Session
from gateway.model import session as session_module
from gateway.wire import UpdateMessage


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def update(**fields: object) -> UpdateMessage:
    return UpdateMessage.model_validate({"type": "update", **fields})


@pytest.fixture
def capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_module, "MAX_EXTENSION_ENTRIES", 5)


@pytest.mark.usefixtures("capped")
def test_entries_past_the_cap_are_dropped_counted_and_reported_once(tmp_path: Path) -> None:
    diagnostics = Diagnostics()
    session = Session.create(tmp_path / "sessions", tmp_path, diagnostics=diagnostics)
    for n in range(12):
        session.apply("flood", update(entry={"n": n}))
    assert len(session.extension_entries()) == 5
    assert session.dropped_entries == 7
    assert [d.code for d in diagnostics] == ["session.entries_dropped"]
    session.close()
    recorded = lines(session.path)
    assert [r["data"]["n"] for r in recorded if r["type"] == "extension"] == [0, 1, 2, 3, 4]
    assert recorded[-1] == {"type": "entries_dropped", "count": 7}


@pytest.mark.usefixtures("capped")
def test_the_cap_holds_across_a_resume(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "sessions", tmp_path)
    for n in range(5):
        session.apply("ext", update(entry=n))
    session.close()
    resumed = Session.resume(tmp_path / "sessions", session.id, Diagnostics())
    assert resumed.append_extension_entry("ext", "one more") is False


def test_an_entry_over_the_size_cap_is_dropped(tmp_path: Path) -> None:
    diagnostics = Diagnostics()
    session = Session.create(tmp_path / "sessions", tmp_path, diagnostics=diagnostics)
    session.apply("big", update(entry="x" * MAX_ENTRY_BYTES))
    session.apply("big", update(entry="small"))
    assert session.extension_entries() == ["small"]
    (dropped,) = list(diagnostics)
    assert dropped.code == "session.entries_dropped" and "over 256 KiB" in dropped.message
    session.close()


def test_an_entry_with_a_lone_surrogate_is_kept_escaped(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "sessions", tmp_path)
    session.apply("ext", update(entry="caf\udce9"))
    session.close()
    assert lines(session.path)[-1]["data"] == "caf\udce9"


def test_only_the_newest_notifications_are_kept(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "sessions", tmp_path)
    seen: list[object] = []
    session.listener = seen.append
    total = MAX_NOTIFICATIONS * 3
    for n in range(total):
        session.apply("noisy", update(notification={"message": str(n)}))
    assert len(session.notifications) <= MAX_NOTIFICATIONS + MAX_NOTIFICATIONS // 10
    assert session.notifications[-1][1].message == str(total - 1)
    assert len(seen) == total  # a live display still sees every one
    session.close()


def test_the_session_file_and_folder_are_private(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "a" / "sessions", tmp_path)
    session.close()
    assert stat.S_IMODE(session.path.stat().st_mode) == 0o600
    for folder in (tmp_path / "a", tmp_path / "a" / "sessions"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_memory_holds_only_the_newest_entries_and_the_file_holds_all(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path, diagnostics=Diagnostics())
    session.memory_window = 10
    for number in range(100):
        session.append({"type": "tool_result", "id": str(number), "output": "x"})
    assert len(session.entries) <= 10 + 10 // 8
    assert session.entries[-1]["id"] == "99"
    assert session.entry_count == 100
    assert [entry["id"] for entry in session.history()] == [str(n) for n in range(100)]
    session.close()


def test_history_and_forks_see_entries_that_left_memory(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path, diagnostics=Diagnostics())
    session.memory_window = 4
    session.add_user_message("first")
    session.apply("ext", update(entry={"n": 1}))
    for number in range(20):
        session.add_user_message(f"message {number}")
    assert session.extension_entries("ext") == [{"n": 1}]
    forked = session.fork(tmp_path, 2)
    assert [e.get("type") for e in forked.history()] == ["user", "extension"]
    assert len(session.model_messages()) == 21
    forked.close()
    session.close()


def test_a_resumed_long_session_keeps_only_the_window_in_memory(tmp_path: Path) -> None:
    session = Session.create(tmp_path, tmp_path, diagnostics=Diagnostics())
    for number in range(50):
        session.add_user_message(str(number))
    session.close()
    resumed = Session.resume(tmp_path, session.id, Diagnostics())
    assert resumed.entry_count == 50
    resumed.memory_window = 5
    resumed.add_user_message("50")
    assert resumed.entry_count == 51 and len(resumed.history()) == 51
    resumed.close()
