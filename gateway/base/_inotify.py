"""Linux's inotify through the C library this process already has: the folders a running
gateway follows (settings and secrets, the store, a lockfile) without polling."""

from __future__ import annotations

import ctypes
import os
import struct
import weakref
from pathlib import Path

__all__ = ["Inotify"]

IN_MODIFY, IN_CLOSE_WRITE, IN_MOVED_FROM, IN_MOVED_TO = 0x2, 0x8, 0x40, 0x80
IN_CREATE, IN_DELETE, IN_ISDIR = 0x100, 0x200, 0x40000000
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
_MASK = IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
_EVENT = struct.Struct("iIII")


class Inotify:
    """Watches folders for files written, moved, made or removed; ``fd`` is readable when
    something happened (``read``)."""

    MODIFY, CREATE, MOVED_TO = IN_MODIFY, IN_CREATE, IN_MOVED_TO
    """Event bits for ``add``'s ``mask`` and ``read``'s events."""

    def __init__(self) -> None:
        # The C library this process already has: find_library("c") would run
        # `ldconfig -p` in a subprocess at every gateway start.
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        # Closed at close(), or when dropped: a watcher task cancelled before it first ran
        # never reaches its own close.
        self._closer = weakref.finalize(self, os.close, self.fd)
        self.watches: dict[int, Path] = {}

    @staticmethod
    def made_folder(mask: int) -> bool:
        """An event's ``mask`` says a folder was made or moved in."""
        return bool(mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO))

    @staticmethod
    def settled(mask: int) -> bool:
        """An event after which the file is as its writer left it: written and closed,
        moved, removed — not a file just made, whose ``IN_CLOSE_WRITE`` follows when its
        writer has written it."""
        return bool(mask & IN_ISDIR or not mask & IN_CREATE)

    def add(self, folder: Path, mask: int = _MASK) -> None:
        """Watch ``folder`` for files written and closed, moved, made or removed; or for
        the events ``mask`` names."""
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(folder), mask)
        if wd >= 0:
            self.watches[wd] = folder

    def read(self) -> list[tuple[Path, str, int]]:
        try:
            data = os.read(self.fd, 64 * 1024)
        except BlockingIOError:
            return []
        events, offset = [], 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            raw = data[offset + _EVENT.size : offset + _EVENT.size + length]
            offset += _EVENT.size + length
            folder = self.watches.get(wd)
            if folder is not None:
                events.append((folder, os.fsdecode(raw.rstrip(b"\0")), mask))
        return events

    def close(self) -> None:
        self._closer()  # once: a second call does nothing
