"""Progress of long steps (installs, setup): a live status line on a terminal, plain lines
otherwise.

A step reporter is any ``Callable[[str], None]`` called with each phase as it begins
("fetching …", "installing dependencies …", "verifying …"); the library takes one and the
CLI decides how it is shown. On a terminal, rich shows a spinner with the current phase and
the elapsed time, and leaves one line per finished phase; elsewhere (a pipe, CI, a log) each
phase is one plain line on stderr.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["Progress", "no_progress", "terminal_progress"]

Progress = Callable[[str], None]


def no_progress(message: str) -> None:
    """A reporter that shows nothing (the library's default, and ``--json``)."""


@contextmanager
def terminal_progress(stream: TextIO | None = None, *, quiet: bool = False) -> Iterator[Progress]:
    """A reporter for the lifetime of the block: rich's live status on a terminal, plain
    ``gateway: …`` lines when ``stream`` (default stderr) is not one; nothing when quiet."""
    out = stream if stream is not None else sys.stderr
    if quiet:
        yield no_progress
        return
    if not _is_terminal(out):

        def plain(message: str) -> None:
            try:
                print(f"gateway: {message}", file=out, flush=True)
            except BrokenPipeError:
                # Its reader went away (`gateway install … 2>&1 | head -1`): the step goes
                # on, unreported; it was abandoned half-done. What is still written there,
                # buffered lines included, goes to /dev/null (as Python's docs on SIGPIPE do).
                _to_null(out)

        yield plain
        return
    from rich.console import Console
    from rich.markup import escape

    from gateway.base._printable import printable, raw_stream

    # rich draws the status line itself; the phase text a package may influence is made
    # printable before rich sees it.
    console = Console(file=raw_stream(out), highlight=False)
    started = time.monotonic()
    current: list[str] = []

    def finish_current() -> None:
        if current:
            console.print(
                f"[green]✓[/] {escape(current[0])} [dim]({time.monotonic() - started:.1f} s)[/]"
            )

    with console.status("starting …") as status:

        def live(message: str) -> None:
            nonlocal started
            finish_current()
            current[:] = [printable(message)]
            started = time.monotonic()
            status.update(f"{escape(current[0])} …")

        try:
            yield live
        except BaseException:
            if current:
                console.print(f"[red]✗[/] {escape(current[0])}")
            current.clear()
            raise
        finish_current()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _to_null(stream: TextIO) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, stream.fileno())
    finally:
        os.close(devnull)
