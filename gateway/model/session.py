"""The session the gateway drives: its file, its entries, and the extensions' side effects.

Status and widget keys are namespaced ``<extension>:<key>``; empty text or no lines removes
them. ``entry`` data is appended to the session file as
``{"type": "extension", "extension": NAME, "data": …}``, is never shown to a model, and comes
back when the session is resumed.

What extensions put into a session is capped, so one that floods cannot fill memory or the
disk: at most ``MAX_EXTENSION_ENTRIES`` entries of at most ``MAX_ENTRY_BYTES`` each are
kept (the rest are counted, reported once as ``session.entries_dropped``, and the count is
written to the file when the session closes), and the newest ``MAX_NOTIFICATIONS``
notifications. The session folder is 0700 and its files 0600.

Memory stays flat however long a session runs (a ``serve`` process answers calls for days,
each leaving a ``tool_result`` entry): ``entries`` holds the newest ``MEMORY_WINDOW``
entries, the file holds them all, and ``history()`` reads the whole session back from the
file once older entries have left memory.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from gateway.base import Diagnostics, GatewayError, private_dir, private_file
from gateway.model import _codes
from gateway.wire import Notification, ResponseMessage, UpdateMessage

__all__ = [
    "MAX_ENTRY_BYTES",
    "MAX_EXTENSION_ENTRIES",
    "MAX_NOTIFICATIONS",
    "MEMORY_WINDOW",
    "Session",
    "SessionEffect",
    "SessionNotFound",
    "new_session_id",
]

MAX_EXTENSION_ENTRIES = 10_000
MAX_ENTRY_BYTES = 256 * 1024
MAX_NOTIFICATIONS = 1_000
MEMORY_WINDOW = 4_096
"""Entries a session keeps in memory; older ones are read back from its file."""

_SESSION_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


class SessionNotFound(GatewayError):
    pass


def new_session_id() -> str:
    # Microseconds since the epoch, the shape nimlet uses ("1789233281025102").
    return str(time.time_ns() // 1000)


def _encode(entry: dict[str, Any]) -> str:
    """One JSON line, UTF-8 where it can be; escaped where a string holds what UTF-8
    cannot (a lone surrogate from a ``\\udcff`` escape, a path that is not UTF-8)."""
    line = json.dumps(entry, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(entry)
    return line


@dataclass(frozen=True, slots=True)
class SessionEffect:
    """What changed, for a live display: kind is status, widget, notification or entry."""

    kind: str
    extension: str
    key: str | None
    value: Any


@dataclass(slots=True)
class Session:
    id: str
    workspace: Path
    path: Path
    entries: list[dict[str, Any]] = field(default_factory=list)
    """The newest entries (at most ``memory_window``); ``history()`` has them all."""
    statuses: dict[str, str] = field(default_factory=dict)
    widgets: dict[str, list[str]] = field(default_factory=dict)
    notifications: list[tuple[str, Notification]] = field(default_factory=list)
    listener: Callable[[SessionEffect], None] | None = None
    diagnostics: Diagnostics | None = None
    """Where ``session.entries_dropped`` goes (nowhere when None)."""
    dropped_entries: int = 0
    _extension_entries: int = 0
    name: str = ""
    """The session's title (the last ``name`` entry)."""
    memory_window: int = MEMORY_WINDOW
    _trimmed: int = 0
    """Entries that have left memory (they are in the file)."""
    _handle: BinaryIO | None = field(default=None, repr=False)

    @classmethod
    def create(
        cls,
        directory: Path,
        workspace: Path,
        session_id: str | None = None,
        diagnostics: Diagnostics | None = None,
    ) -> Session:
        session_id = session_id or new_session_id()
        if not _SESSION_ID.match(session_id):
            raise SessionNotFound(f"invalid session id {session_id!r}")
        private_dir(directory)
        session = cls(session_id, workspace, directory / f"{session_id}.jsonl")
        session.diagnostics = diagnostics
        header = {"type": "session", "id": session_id, "workspace": str(workspace)}
        fd = private_file(session.path, exclusive=True)
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(header) + "\n")
        return session

    @classmethod
    def resume(cls, directory: Path, session_id: str, diagnostics: Diagnostics) -> Session:
        """Read a session file back; unreadable lines are skipped with a diagnostic."""
        if not _SESSION_ID.match(session_id):
            raise SessionNotFound(f"invalid session id {session_id!r}")
        path = directory / f"{session_id}.jsonl"
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise SessionNotFound(f"session {session_id} not found ({error})") from None
        workspace: Path | None = None
        entries: list[dict[str, Any]] = []
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
                if not isinstance(record, dict) or not isinstance(record.get("type"), str):
                    raise ValueError("not an object with a type")
            except ValueError as error:
                diagnostics.add(
                    _codes.SESSION_FILE_CORRUPT(
                        f"{path}:{number}: skipped unreadable line ({error})"
                    )
                )
                continue
            if record["type"] == "session":
                workspace = Path(record.get("workspace") or ".")
            else:
                entries.append(record)
        if workspace is None:
            raise SessionNotFound(f"{path} has no session header")
        names = [
            e["name"] for e in entries if e["type"] == "name" and isinstance(e.get("name"), str)
        ]
        session = cls(
            session_id,
            workspace,
            path,
            entries,
            diagnostics=diagnostics,
            name=names[-1] if names else "",
        )
        session._extension_entries = sum(1 for e in entries if e.get("type") == "extension")
        session._trim()
        return session

    def fork(self, directory: Path, message: int) -> Session:
        """A new session holding every entry before the ``message``-th (1-based) user
        message of this one (nimlet's ``fork``); ``SessionNotFound`` if there is none."""
        entries = self.history()
        users = [index for index, entry in enumerate(entries) if entry.get("type") == "user"]
        if not 1 <= message <= len(users):
            raise SessionNotFound("fork message not found")
        forked = Session.create(directory, self.workspace, diagnostics=self.diagnostics)
        for entry in entries[: users[message - 1]]:
            forked.append(entry)
        forked.name = self.name
        return forked

    # ------------------------------------------------------------------ writing

    def append(self, entry: dict[str, Any]) -> None:
        self._write(entry, _encode(entry))

    def _write(self, entry: dict[str, Any], line: str) -> None:
        self.entries.append(entry)
        if len(self.entries) > self.memory_window + self.memory_window // 8:
            self._trim()  # in batches: deleting from a list's front moves the rest
        if self._handle is None:
            # Unbuffered: each entry is one write, on disk (in the page cache) at once.
            self._handle = open(private_file(self.path, append=True), "ab", buffering=0)  # noqa: SIM115 - closed in close()
        self._handle.write((line + "\n").encode())

    def append_extension_entry(self, extension: str, data: Any) -> bool:
        """Keep an extension's ``entry``, within the caps; False when it was dropped."""
        entry = {"type": "extension", "extension": extension, "data": data}
        try:
            line: str | None = _encode(entry)
        except (TypeError, ValueError, RecursionError):
            line = None
        if (
            line is None
            or self._extension_entries >= MAX_EXTENSION_ENTRIES
            or (len(line.encode("utf-8")) > MAX_ENTRY_BYTES)
        ):
            self._drop(extension, line is None)
            return False
        self._extension_entries += 1
        self._write(entry, line)
        return True

    def _drop(self, extension: str, unserialisable: bool) -> None:
        self.dropped_entries += 1
        if self.dropped_entries == 1 and self.diagnostics is not None:
            reason = (
                "an entry that is not JSON"
                if unserialisable
                else f"more than {MAX_EXTENSION_ENTRIES} entries or one over "
                f"{MAX_ENTRY_BYTES // 1024} KiB"
            )
            self.diagnostics.add(
                _codes.SESSION_ENTRIES_DROPPED(
                    f"{extension}: {reason}; it and any further ones over the caps are "
                    "dropped (counted in the session file when it closes)",
                    package=extension,
                )
            )

    def _trim(self) -> None:
        excess = len(self.entries) - self.memory_window
        if excess > 0:
            del self.entries[:excess]
            self._trimmed += excess

    @property
    def entry_count(self) -> int:
        """Every entry of the session, in memory or only in its file."""
        return self._trimmed + len(self.entries)

    def history(self) -> list[dict[str, Any]]:
        """Every entry of the session, oldest first: the ones in memory, or the file read
        back when older ones have left memory (lines that cannot be read are skipped, as
        ``resume`` reports them)."""
        if not self._trimmed:
            return list(self.entries)
        try:
            raw = self.path.read_bytes()
        except OSError:
            return list(self.entries)  # the file is gone: what memory still holds
        entries: list[dict[str, Any]] = []
        for line in raw.decode("utf-8", "replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            kind = record.get("type") if isinstance(record, dict) else None
            if isinstance(kind, str) and kind != "session":
                entries.append(record)
        return entries

    def add_user_message(self, text: str) -> None:
        """Record a user message (nimlet's ``user`` entry: text content parts)."""
        self.append({"type": "user", "role": "user", "content": [{"type": "text", "text": text}]})

    def set_name(self, name: str) -> None:
        """Set the title (trimmed) and record it as a ``name`` entry."""
        self.name = name.strip()
        self.append({"type": "name", "name": self.name})

    def model_messages(self) -> list[dict[str, Any]]:
        """The messages a model would get from this session, in session-entry shape: user
        and assistant entries (a standalone tool result as a user message holding a
        ``tool_result`` part); after a compaction, a user message wrapping
        ``<summary>…</summary>`` and the entries it kept."""
        entries = self.history()
        messages: list[dict[str, Any]] = []
        start = 0
        for index in range(len(entries) - 1, -1, -1):
            entry = entries[index]
            if entry.get("type") == "compaction":
                summary = entry.get("summary") if isinstance(entry.get("summary"), str) else ""
                messages.append(
                    {"type": "user", "role": "user",
                     "content": [{"type": "text", "text": f"<summary>\n{summary}\n</summary>"}]}
                )  # fmt: skip
                kept = entry.get("first_kept_index")
                start = kept if isinstance(kept, int) and 0 <= kept <= index else index
                entries = [*entries[start:index], *entries[index + 1 :]]
                break
        for entry in entries:
            kind = entry.get("type")
            if kind in ("user", "assistant"):
                messages.append(
                    {
                        "type": kind,
                        "role": entry.get("role", kind),
                        "content": entry.get("content", []),
                    }
                )
            elif kind == "tool_result":
                part = {
                    "type": "tool_result",
                    "tool_use_id": str(entry.get("id", "")),
                    "content": entry.get("output", ""),
                    "is_error": bool(entry.get("is_error")),
                }
                messages.append({"type": "user", "role": "user", "content": [part]})
        return messages

    def close(self) -> None:
        if self.dropped_entries:
            count, self.dropped_entries = self.dropped_entries, 0
            marker = {"type": "entries_dropped", "count": count}
            self._write(marker, json.dumps(marker))
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def extension_entries(self, extension: str | None = None) -> list[Any]:
        return [
            entry["data"]
            for entry in self.history()
            if entry.get("type") == "extension"
            and (extension is None or entry.get("extension") == extension)
        ]

    def apply(self, extension: str, message: ResponseMessage | UpdateMessage) -> None:
        """Apply the side-effect fields of one response or update line."""
        if message.status is not None:
            key = f"{extension}:{message.status.key}"
            if message.status.text:
                self.statuses[key] = message.status.text
            else:
                self.statuses.pop(key, None)
            self._tell("status", extension, key, message.status.text)
        if message.widget is not None:
            key = f"{extension}:{message.widget.key}"
            if message.widget.lines:
                self.widgets[key] = list(message.widget.lines)
            else:
                self.widgets.pop(key, None)
            self._tell("widget", extension, key, list(message.widget.lines))
        if message.notification is not None:
            self.notifications.append((extension, message.notification))
            if len(self.notifications) > MAX_NOTIFICATIONS + MAX_NOTIFICATIONS // 10:
                del self.notifications[:-MAX_NOTIFICATIONS]  # the newest are kept
            self._tell("notification", extension, None, message.notification)
        if message.has_entry and self.append_extension_entry(extension, message.entry):
            self._tell("entry", extension, None, message.entry)

    def _tell(self, kind: str, extension: str, key: str | None, value: Any) -> None:
        if self.listener is not None:
            self.listener(SessionEffect(kind, extension, key, value))
