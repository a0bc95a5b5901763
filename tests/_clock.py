"""Virtual time for tests whose extensions run in memory: the clock is the real one plus an
offset, and whenever every task is waiting (nothing runnable, no worker thread busy) the
offset jumps to the next deadline. A timeout, a ``sleep`` step or a deadline paused by a
question then takes no real time, and the order of what happens no longer depends on how
busy the machine is: a test that passes once passes every time.

A child process works in real time: while one reached through the tests' transport runs
(``REAL_WORK``, counted by ``tests/_memory.py``) the clock does not jump, and the test waits
as it would on a real clock. Other children (a ``tool.json`` tool, the CLI) are not
counted: a module that starts them stays on the real clock. Use it by importing
``virtual_time`` into a test module or conftest (it registers as ``anyio_backend``):
asyncio gets a selector event loop whose ``time()`` is virtual, trio a ``trio.abc.Clock``.
"""

from __future__ import annotations

import asyncio
import selectors
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio.to_thread
import pytest
import trio

__all__ = ["REAL_WORK", "VirtualClock", "virtual_time"]


class _Count:
    def __init__(self) -> None:
        self.count = 0


REAL_WORK = _Count()
"""Child processes running now, which the clock must not jump past."""


class VirtualClock:
    """Real monotonic time plus ``offset``; ``busy`` counts worker threads in flight (the
    only waits that end on their own without the clock moving)."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.busy = 0

    def now(self) -> float:
        return time.monotonic() + self.offset

    def may_jump(self) -> bool:
        return self.busy == 0 and REAL_WORK.count == 0

    def jump_to(self, deadline: float) -> None:
        self.offset += max(0.0, deadline - self.now())


class _Selector(selectors.DefaultSelector):
    """asyncio waits here when nothing is ready: instead of sleeping until the next timer,
    look once for I/O and, finding none, jump the clock to that timer."""

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self._clock = clock

    def select(self, timeout: float | None = None) -> list[Any]:
        if timeout is None or timeout <= 0 or not self._clock.may_jump():
            return super().select(timeout)
        ready = super().select(0)
        if not ready:
            self._clock.offset += timeout
        return ready


class _Loop(asyncio.SelectorEventLoop):
    def __init__(self, clock: VirtualClock) -> None:
        super().__init__(_Selector(clock))
        self._virtual = clock

    def time(self) -> float:
        return self._virtual.now()


class _TrioClock(trio.abc.Clock):
    """Asked only when no task is runnable: how long to wait for I/O before ``deadline``."""

    def __init__(self, clock: VirtualClock) -> None:
        self._clock = clock

    def start_clock(self) -> None:
        pass

    def current_time(self) -> float:
        return self._clock.now()

    def deadline_to_sleep_time(self, deadline: float) -> float:
        if self._clock.may_jump() and deadline != float("inf"):
            self._clock.jump_to(deadline)
            return 0.0
        return deadline - self._clock.now()


def _counting(clock: VirtualClock, run_sync: Callable[..., Any]) -> Callable[..., Any]:
    async def counted(*args: Any, **kwargs: Any) -> Any:
        clock.busy += 1
        try:
            return await run_sync(*args, **kwargs)
        finally:
            clock.busy -= 1

    return counted


@pytest.fixture(params=["asyncio", "trio"], name="anyio_backend")
def virtual_time(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Both backends, on a virtual clock."""
    clock = VirtualClock()
    monkeypatch.setattr(anyio.to_thread, "run_sync", _counting(clock, anyio.to_thread.run_sync))
    if request.param == "asyncio":
        yield ("asyncio", {"loop_factory": lambda: _Loop(clock)})
    else:
        yield ("trio", {"clock": _TrioClock(clock)})
