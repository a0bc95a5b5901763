"""``gateway.serve._heap``: what exists once the server is open is frozen out of the
collector's way; a package-set change hands it back, so nothing it drops is kept."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from gateway.serve._heap import release, settle


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_settle_collects_garbage_then_freezes_what_survives(unfrozen: None) -> None:
    garbage = weakref.ref(_Node())
    kept = _Node()
    settle()
    assert garbage() is None
    assert gc.get_freeze_count() > 0
    assert not any(kept is found for found in gc.get_objects())  # frozen: out of its reach


def test_a_frozen_cycle_dropped_after_release_is_collected(unfrozen: None) -> None:
    held = [_Node()]
    dropped = weakref.ref(held[0])
    settle()
    release()
    assert gc.get_freeze_count() == 0
    held.clear()
    gc.collect()
    assert dropped() is None
