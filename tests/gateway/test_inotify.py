"""``Inotify``: the watches a running gateway follows, and their descriptor's end."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

from gateway.base import Inotify

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's inotify")


def test_a_file_written_is_settled_and_a_file_just_made_is_not(tmp_path: Path) -> None:
    watch = Inotify()
    try:
        watch.add(tmp_path)
        (tmp_path / "config.json").write_text("{}")
        events = [(name, Inotify.settled(mask)) for _, name, mask in watch.read()]
        # Made (not settled: its writer is still writing), then written and closed.
        assert events[0] == ("config.json", False)
        assert ("config.json", True) in events[1:]
        (tmp_path / "folder").mkdir()
        [(_, name, mask)] = watch.read()
        assert name == "folder" and Inotify.made_folder(mask) and Inotify.settled(mask)
    finally:
        watch.close()


def test_close_twice_is_once_and_a_dropped_watch_closes_its_descriptor() -> None:
    watch = Inotify()
    watch.close()
    watch.close()  # a second close does not close a descriptor reused since
    dropped = Inotify()
    fd = dropped.fd
    del dropped
    gc.collect()
    with pytest.raises(OSError):
        os.fstat(fd)  # closed when the object went (a task cancelled before it ran)
