"""The at-most-once journal: calls that must not run twice (Nu's ``at_most_once`` tools).

A call is written (``running``) and committed before its process starts, and marked
``done`` after. Each row names the gateway process that runs it (pid and the process's
start time, so a recycled pid is not mistaken for it). A ``running`` row whose gateway is
gone was interrupted by a crash: it may or may not have had its effect, so it becomes
``indeterminate`` and stays so until the user resolves it (``gateway journal resolve``).
Until then, no call of the same tool with the same arguments runs: the gateway waits for
the user instead of running it again. The idea, and the word, come from rebuno's step
journal (an orphaned ``at_most_once`` step fails as ``indeterminate``).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from gateway.store._schema import StoreError
from gateway.store._store import StateStore

__all__ = [
    "ARGUMENTS_CAP",
    "CallJournal",
    "JournalEntry",
    "Resolution",
    "arguments_digest",
    "process_token",
]

ARGUMENTS_CAP = 4096
"""Characters of a call's arguments kept for ``gateway journal`` to show."""
Resolution = Literal["ran", "not_run"]
_COLUMNS = ("id", "package_id", "tool", "arguments", "session_id", "owner", "state",
            "started_at", "finished_at", "outcome")  # fmt: skip


@dataclass(frozen=True, slots=True)
class JournalEntry:
    id: str
    package_id: str
    tool: str
    arguments: str
    """The arguments as JSON, cut at ``ARGUMENTS_CAP`` characters."""
    session_id: str
    owner: str
    state: str
    """``running``, ``done``, ``indeterminate`` or ``resolved``."""
    started_at: datetime
    finished_at: datetime | None
    outcome: str | None
    """``ok`` / ``error`` for a finished call; ``ran`` / ``not_run`` as the user resolved it."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "package": self.package_id,
            "tool": self.tool,
            "arguments": self.arguments,
            "session_id": self.session_id,
            "state": self.state,
            "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "outcome": self.outcome,
        }


def arguments_digest(arguments: dict[str, Any]) -> str:
    """The canonical digest of a call's arguments (key order does not matter)."""
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _start_time(pid: int) -> str | None:
    """The kernel's start time of ``pid`` (clock ticks since boot), None when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after its end.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


@functools.cache
def process_token() -> str:
    """This process, as the journal names the gateway that runs a call."""
    pid = os.getpid()
    return f"{pid}:{_start_time(pid) or ''}"


def _alive(token: str) -> bool:
    pid_text, _, started = token.partition(":")
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        pass  # someone else's process now holds the pid: compared below
    return not started or _start_time(pid) == started


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class CallJournal:
    """The journal in one open state store."""

    def __init__(self, store: StateStore) -> None:
        self._store = store

    def begin(self, package_id: str, tool: str, arguments: dict[str, Any], session_id: str) -> str:
        """Record a call about to start; returns its id. Committed (and synced) first."""
        call_id = uuid.uuid4().hex
        shown = json.dumps(arguments, ensure_ascii=False)[:ARGUMENTS_CAP]
        with self._store._transaction(write=True) as conn:
            conn.execute(
                f"INSERT INTO call_journal ({', '.join(_COLUMNS[:8])}, arguments_digest) "
                "VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?)",
                (call_id, package_id, tool, shown, session_id, process_token(), _now(),
                 arguments_digest(arguments)),
            )  # fmt: skip
        return call_id

    def finish(self, call_id: str, outcome: str) -> None:
        with self._store._transaction(write=True) as conn:
            conn.execute(
                "UPDATE call_journal SET state = 'done', finished_at = ?, outcome = ? "
                "WHERE id = ? AND state = 'running'",
                (_now(), outcome, call_id),
            )

    def interrupt(self, call_id: str, outcome: str) -> None:
        """The call was cut short while this gateway runs (a timeout, a crash of its
        process, a cancel): whether it had its effect is not known."""
        with self._store._transaction(write=True) as conn:
            conn.execute(
                "UPDATE call_journal SET state = 'indeterminate', finished_at = ?, "
                "outcome = ? WHERE id = ? AND state = 'running'",
                (_now(), outcome, call_id),
            )

    def sweep(self) -> list[JournalEntry]:
        """Mark the ``running`` calls of gateways that are gone ``indeterminate``; returns
        every unresolved indeterminate call."""
        with self._store._transaction(write=True) as conn:
            rows = conn.execute(
                "SELECT id, owner FROM call_journal WHERE state = 'running'"
            ).fetchall()
            orphans = [row[0] for row in rows if row[1] != process_token() and not _alive(row[1])]
            conn.executemany(
                "UPDATE call_journal SET state = 'indeterminate' WHERE id = ?",
                [(orphan,) for orphan in orphans],
            )
        return self.entries(states=("indeterminate",))

    def blocking(
        self, package_id: str, tool: str, arguments: dict[str, Any]
    ) -> JournalEntry | None:
        """An unresolved interrupted call of the same tool with the same arguments."""
        self.sweep()
        digest = arguments_digest(arguments)
        with self._store._transaction(write=False) as conn:
            row = conn.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM call_journal WHERE state = 'indeterminate'"
                " AND package_id = ? AND tool = ? AND arguments_digest = ?"
                " ORDER BY started_at LIMIT 1",
                (package_id, tool, digest),
            ).fetchone()
        return _entry(row) if row is not None else None

    def entries(self, states: Iterable[str] | None = None) -> list[JournalEntry]:
        query = f"SELECT {', '.join(_COLUMNS)} FROM call_journal"
        wanted = list(states) if states is not None else []
        if states is not None:
            query += f" WHERE state IN ({', '.join('?' * len(wanted))})"
        with self._store._transaction(write=False) as conn:
            rows = conn.execute(query + " ORDER BY started_at", wanted).fetchall()
        return [_entry(row) for row in rows]

    def resolve(self, call_id: str, resolution: Resolution) -> JournalEntry:
        """The user's word on an interrupted call: it ``ran`` or it did not (``not_run``).
        Either way the same call may run again when the agent asks for it."""
        self.sweep()
        with self._store._transaction(write=True) as conn:
            row = conn.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM call_journal WHERE id = ?", (call_id,)
            ).fetchone()
            if row is None:
                raise StoreError(f"no journaled call with id {call_id!r} (see `gateway journal`)")
            entry = _entry(row)
            if entry.state != "indeterminate":
                raise StoreError(
                    f"call {call_id} is {entry.state}, not indeterminate: nothing to resolve"
                )
            conn.execute(
                "UPDATE call_journal SET state = 'resolved', outcome = ?, finished_at = ? "
                "WHERE id = ?",
                (resolution, _now(), call_id),
            )
        return self.entry(call_id)

    def entry(self, call_id: str) -> JournalEntry:
        with self._store._transaction(write=False) as conn:
            row = conn.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM call_journal WHERE id = ?", (call_id,)
            ).fetchone()
        if row is None:
            raise StoreError(f"no journaled call with id {call_id!r} (see `gateway journal`)")
        return _entry(row)


def _entry(row: tuple[Any, ...]) -> JournalEntry:
    values = dict(zip(_COLUMNS, row, strict=True))
    finished = values["finished_at"]
    return JournalEntry(
        id=values["id"],
        package_id=values["package_id"],
        tool=values["tool"],
        arguments=values["arguments"],
        session_id=values["session_id"],
        owner=values["owner"],
        state=values["state"],
        started_at=datetime.fromisoformat(values["started_at"]),
        finished_at=datetime.fromisoformat(finished) if finished else None,
        outcome=values["outcome"],
    )
