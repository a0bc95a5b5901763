"""The one place the core touches an event loop directly: a fast path for asyncio behind a
small interface, with an anyio fallback for every other backend (trio).

On asyncio a tool call can take the two loop iterations a hand-written asyncio client
takes: the pipe's reader callback stays registered with the loop and resolves the caller's
future directly, and one timer per extension watches every deadline. Through anyio alone
the same call takes three (wake the reader task, resume the caller, re-arm the reader) plus
a cancel scope per request. Everything above this module is backend-neutral: it asks for a
``Waiter`` and, where the backend allows, a ``ReaderCallback`` and a ``Timer``.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any, Protocol

import anyio
import sniffio

__all__ = ["FastPath", "Timer", "Waiter", "fast_path", "new_waiter"]


class Waiter(Protocol):
    """One reply to wait for. The first ``resolve`` or ``fail`` wins."""

    def done(self) -> bool: ...

    def resolve(self, value: Any) -> None: ...

    def fail(self, error: BaseException) -> None: ...

    async def wait(self, deadline: float) -> Any:
        """The value, or the failure raised; ``TimeoutError`` at ``deadline`` (an absolute
        ``anyio.current_time()``; ``math.inf``: none) unless ``extend`` moves it."""
        ...

    def extend(self, deadline: float) -> None:
        """Move the deadline of a wait in progress."""
        ...


class _EventWaiter:
    """Any backend: an anyio event, and a cancel scope carrying the deadline."""

    __slots__ = ("_error", "_event", "_scope", "_value")

    def __init__(self) -> None:
        self._event = anyio.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        self._scope: anyio.CancelScope | None = None

    def done(self) -> bool:
        return self._event.is_set()

    def resolve(self, value: Any) -> None:
        if not self._event.is_set():
            self._value = value
            self._event.set()

    def fail(self, error: BaseException) -> None:
        if not self._event.is_set():
            self._error = error
            self._event.set()

    async def wait(self, deadline: float) -> Any:
        with anyio.CancelScope(deadline=deadline) as scope:
            self._scope = scope
            await self._event.wait()
        self._scope = None
        if not self._event.is_set():
            raise TimeoutError
        if self._error is not None:
            raise self._error
        return self._value

    def extend(self, deadline: float) -> None:
        if self._scope is not None:
            self._scope.deadline = deadline


class _FutureWaiter:
    """asyncio: a bare future; its deadline is kept by the extension's ``Timer``."""

    __slots__ = ("_future",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._future: asyncio.Future[Any] = loop.create_future()

    def done(self) -> bool:
        return self._future.done()

    def resolve(self, value: Any) -> None:
        if not self._future.done():
            self._future.set_result(value)

    def fail(self, error: BaseException) -> None:
        if not self._future.done():
            self._future.set_exception(error)

    async def wait(self, deadline: float) -> Any:
        return await self._future

    def extend(self, deadline: float) -> None:
        pass  # the Timer fails the future when its deadline passes


class Timer:
    """One timer (asyncio ``call_at``) that calls ``callback`` at the earliest deadline it
    was asked for; asking for a later one while an earlier is armed does nothing."""

    __slots__ = ("_at", "_callback", "_handle", "_loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
        self._loop = loop
        self._callback = callback
        self._handle: asyncio.TimerHandle | None = None
        self._at = math.inf

    def arm(self, when: float) -> None:
        if when >= self._at or math.isinf(when):
            return
        self.cancel()
        self._at = when
        self._handle = self._loop.call_at(when, self._fire)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._at = math.inf

    def _fire(self) -> None:
        self._handle = None
        self._at = math.inf
        self._callback()


class FastPath:
    """The asyncio loop's own primitives, for the current loop."""

    __slots__ = ("_loop",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def waiter(self) -> Waiter:
        return _FutureWaiter(self._loop)

    def timer(self, callback: Callable[[], None]) -> Timer:
        return Timer(self._loop, callback)

    def watch(self, fd: int, on_readable: Callable[[], None]) -> Callable[[], None]:
        """Call ``on_readable`` whenever ``fd`` is readable, until the returned function
        is called (always before the descriptor is closed)."""
        self._loop.add_reader(fd, on_readable)

        def unwatch() -> None:
            self._loop.remove_reader(fd)

        return unwatch


def fast_path() -> FastPath | None:
    """The fast path for the running loop, or None on a backend without one (trio)."""
    try:
        if sniffio.current_async_library() != "asyncio":
            return None
        loop = asyncio.get_running_loop()
    except (sniffio.AsyncLibraryNotFoundError, RuntimeError):
        return None
    # A loop without reader callbacks (Windows' proactor) takes the portable path.
    return FastPath(loop) if hasattr(loop, "add_reader") and _supports_readers(loop) else None


def _supports_readers(loop: asyncio.AbstractEventLoop) -> bool:
    return not type(loop).__name__.startswith("_WindowsProactor")


def new_waiter(fast: FastPath | None) -> Waiter:
    return fast.waiter() if fast is not None else _EventWaiter()
