"""``gateway.serve._heap``: what exists once the server is open is frozen out of the
collector's way; a package-set change hands it back, so nothing it drops is kept."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import anyio
import pytest

from gateway.serve._heap import Resettle, release, settle


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


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


@pytest.mark.anyio
async def test_a_package_set_change_releases_the_heap_and_it_is_settled_again(
    unfrozen: None,
) -> None:
    settle()
    heap = Resettle(delay=0)
    async with anyio.create_task_group() as group:
        group.start_soon(heap.run)
        heap.changed()
        assert gc.get_freeze_count() == 0  # released as the change is told
        await heap.settled.wait()
        assert gc.get_freeze_count() > 0
        group.cancel_scope.cancel()
