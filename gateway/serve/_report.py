"""What ``gateway serve`` says on stderr (stdout is the protocol): its diagnostics by the
rules ``gateway list`` follows — each problem said once, grouped by package
(``gateway.base.by_package``) — so that what matters is not buried in a long home's
start.

While the gateway opens and its runtimes warm, the warnings are held; once every runtime
is up (or the server stops first) each package that warned is one line — how many, and
their codes — the gateway's and the server's own warnings are said in full, and one
closing line says where each is said in full (``gateway list``; ``-v``). Errors are said
in full at once, whenever they come; after the start, each diagnostic is one line as it
comes. What is said while a client's call or prompt is answered (``answering``) is about
that request, not the start — ``gateway list`` would not say it —: one line at once, even
while the runtimes still warm. ``verbose``: the warnings held are said in full, grouped
the same way; ``quiet``: errors only. Notes (infos) are left to ``gateway list`` and
``--json``, as everywhere. What a package wrote (its id, a message, a hint) is printable
and kept on its one line."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

from gateway.base import Diagnostic, Severity, by_package, counted, named_message, printable_line

__all__ = ["ServeReport", "answering", "diagnostic_line", "stderr_reporter"]

PREFIX = "gateway serve: "
_ANSWERING: ContextVar[bool] = ContextVar("gateway_serve_answering", default=False)


@contextmanager
def answering() -> Iterator[None]:
    """While a client's request is answered (in this task and those it starts): what is
    said is that request's, said at once, not held with the start's warnings."""
    token = _ANSWERING.set(True)
    try:
        yield
    finally:
        _ANSWERING.reset(token)


def diagnostic_line(diagnostic: Diagnostic) -> str:
    """``gateway serve: SEVERITY [CODE] ID: message (hint: …)``."""
    line = f"{PREFIX}{diagnostic.severity.value} [{diagnostic.code}] "
    line += printable_line(named_message(diagnostic))
    if diagnostic.hint:
        line += f" (hint: {printable_line(diagnostic.hint)})"
    return line


def _package_line(package: str, warnings: list[Diagnostic]) -> str:
    """``gateway serve: ID: 3 warnings [2 code, other]``, the codes in the order said."""
    codes = Counter(d.code for d in warnings)
    shown = ", ".join(code if count == 1 else f"{count} {code}" for code, count in codes.items())
    return f"{PREFIX}{printable_line(package)}: {counted(len(warnings), 'warning')} [{shown}]"


def _in_full(diagnostic: Diagnostic) -> bool:
    """Said in full even at start: the gateway's own (no package: few, about this run) and
    the server's (``serve.*``: what this server does — a package served with nothing in it,
    a tool renamed for MCP —, which ``gateway list`` does not say)."""
    return diagnostic.package is None or diagnostic.code.startswith("serve.")


class ServeReport:
    """The listener of a served gateway's diagnostics (``open_gateway``'s
    ``on_diagnostic``); ``started`` ends the start (the held warnings are said then)."""

    def __init__(
        self, stream: TextIO | None = None, *, quiet: bool = False, verbose: bool = False
    ) -> None:
        self._stream = stream
        self.quiet, self.verbose = quiet, verbose
        self._held: list[Diagnostic] | None = []
        """Warnings said while the gateway starts; None once it has."""

    def __call__(self, diagnostic: Diagnostic) -> None:
        if diagnostic.severity is Severity.INFO:
            return
        if diagnostic.severity is Severity.WARNING:
            if self.quiet:
                return
            if self._held is not None and not _ANSWERING.get():
                self._held.append(diagnostic)
                return
        self._say(diagnostic_line(diagnostic))

    def started(self) -> None:
        """The start is over: the warnings held, grouped by package. Said once; later
        diagnostics are said as they come."""
        held, self._held = self._held, None
        if not held:
            return
        grouped = by_package(held)
        if self.verbose:
            for diagnostic in grouped:
                self._say(diagnostic_line(diagnostic))
            return
        packages: dict[str, list[Diagnostic]] = {}
        for diagnostic in grouped:
            if _in_full(diagnostic):
                self._say(diagnostic_line(diagnostic))
            else:
                packages.setdefault(diagnostic.package or "", []).append(diagnostic)
        for package, warnings in packages.items():
            self._say(_package_line(package, warnings))
        if packages:
            count = sum(len(warnings) for warnings in packages.values())
            self._say(
                f"{PREFIX}{counted(count, 'warning')} from {counted(len(packages), 'package')} "
                "at start: `gateway list` says each in full (or serve -v)"
            )

    def _say(self, line: str) -> None:
        print(line, file=self._stream or sys.stderr, flush=True)


def stderr_reporter(stream: TextIO | None = None) -> ServeReport:
    """Warnings and errors as one line each on stderr, as they come (an MCP client shows
    its server's stderr in its log; a nimlet host writes it to the extension's log): what
    a server says outside its start (it cannot start, a sync failed)."""
    report = ServeReport(stream)
    report.started()
    return report
