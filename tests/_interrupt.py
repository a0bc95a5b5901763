"""Children that take Ctrl-C as a terminal's would: ``interruptible``.

A shell that starts a command in the background without job control (``pytest ... &`` in a
script, a CI step) starts it with SIGINT ignored, and an ignored signal stays ignored across
``exec``: every child the tests start would then ignore the SIGINT a test sends it, and
Python would never raise ``KeyboardInterrupt`` in it. A handled signal is reset to its
default at ``exec``, so while a child is started this process handles SIGINT (Python's own
handler) and the child gets the default."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

__all__ = ["interruptible"]


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While the block starts children, they get SIGINT's default disposition."""
    before = signal.getsignal(signal.SIGINT)
    if before is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
