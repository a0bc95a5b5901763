"""Human output: aligned tables whose last column wraps (never cut), diagnostics with their
hints, one-line errors."""

from __future__ import annotations

import re
import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Collection, Sequence
from typing import Any, TextIO

from gateway.base import (
    Diagnostic,
    Severity,
    by_package,
    json_text,
    named_message,
    printable,
    printable_line,
    raw_stream,
)

_FALLBACK_WIDTH = 100
"""Width when the output is not a terminal and ``COLUMNS`` is unset (a pipe, a log)."""
_MIN_LAST_COLUMN = 30


def output_width() -> int:
    """``COLUMNS``, else the terminal's width, else 100."""
    return shutil.get_terminal_size((_FALLBACK_WIDTH, 24)).columns


def summary(text: str) -> str:
    """A cell's worth of a package's text: its first non-blank line, ``…`` when more follows
    (a tool description may be pages of Markdown; ``--json`` and ``inspect`` keep it all)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 else "")


def width(text: str) -> int:
    """Columns ``text`` takes on a terminal: East Asian wide and full-width characters take
    two, combining marks none."""
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def table(
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    out: TextIO,
    *,
    notes: Sequence[str | None] | None = None,
) -> None:
    """Columns aligned by their width on screen; the last one wraps to the output width.
    A cell is one line: its line breaks and tabs become spaces, and a package's control
    characters are escaped before measuring. ``notes[i]`` (e.g. a diagnostic's hint) is
    printed under row ``i``'s last column as ``hint: …``."""
    print(f"{title} ({len(rows)})", file=out)
    if not rows:
        print("  (none)", file=out)
        return
    cells = [[printable_line(str(cell)) for cell in row] for row in rows]
    first = [
        max(width(headers[i]), *(width(row[i]) for row in cells)) for i in range(len(headers) - 1)
    ]
    indent = 2 + sum(column + 2 for column in first)
    last = max(_MIN_LAST_COLUMN, output_width() - indent - 1)

    def line(values: Sequence[str], continuation: str) -> str:
        pairs = zip(values, first, strict=True)
        lead = "  " + "".join(value + " " * (column + 2 - width(value)) for value, column in pairs)
        return (lead + continuation).rstrip()

    print(line([h.upper() for h in headers[:-1]], headers[-1].upper()), file=out)
    for index, row in enumerate(cells):
        wrapped = _wrap(row[-1], last) or [""]
        note = notes[index] if notes is not None else None
        if note:
            wrapped += _wrap(f"hint: {' '.join(printable(note).split())}", last)
        print(line(row[:-1], wrapped[0]), file=out)
        blank = [""] * (len(headers) - 1)
        for more in wrapped[1:]:
            print(line(blank, more), file=out)


def _wrap(text: str, columns: int) -> list[str]:
    """Words filled up to ``columns`` on screen. Paths and commands stay whole
    (copy-pasteable), even past the width."""
    if width(text) == len(text):
        return textwrap.wrap(text, columns, break_on_hyphens=False, break_long_words=False)
    lines: list[str] = []
    for word in text.split():
        if lines and width(lines[-1]) + 1 + width(word) <= columns:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


_COMMIT = re.compile(r"[0-9a-f]{40}")


def short(value: str) -> str:
    """A content hash or a commit as a person reads it: ``sha256:`` and 12 hex digits and
    ``…``; a commit's first 12; anything else whole. ``--json`` keeps them all."""
    if value.startswith("sha256:") and len(value) > 19:
        return value[:19] + "…"
    return value[:12] if _COMMIT.fullmatch(value) else value


def diagnostics_table(diagnostics: Sequence[Diagnostic], out: TextIO) -> None:
    """One table, grouped by package (``by_package``): a group's package named on its
    first row, and not again at the start of its messages (``ID: …``, as most adapters
    begin theirs for the one-line form)."""
    grouped = by_package(diagnostics)
    rows = []
    for index, d in enumerate(grouped):
        first = index == 0 or grouped[index - 1].package != d.package
        message = d.message.removeprefix(f"{d.package}: ") if d.package else d.message
        rows.append(((d.package or "(gateway)") if first else "", d.severity.value, d.code,
                     message))  # fmt: skip
    table(
        "Diagnostics",
        ("package", "severity", "code", "message"),
        rows,
        out,
        notes=[d.hint for d in grouped],
    )


def print_diagnostics(
    diagnostics: Sequence[Diagnostic],
    out: TextIO | None = None,
    *,
    indent: str = "",
    least: Severity = Severity.INFO,
    named: bool = False,
) -> None:
    """One line each (``severity: message [code]``), its hint under it; those below
    ``least`` are left to ``gateway list`` and ``--json``. ``named``: where the lines are
    of many packages, each names its package (``severity: ID: message``) unless its
    message already begins with it. ``out``: the ``sys.stderr`` of the moment by default —
    a warm session gives each command its own (a default taken when this module loaded
    wrote the command's warnings to the session's log)."""
    out = sys.stderr if out is None else out
    order = [Severity.INFO, Severity.WARNING, Severity.ERROR]
    for diagnostic in dict.fromkeys(diagnostics):  # each problem once
        if order.index(diagnostic.severity) < order.index(least):
            continue
        message = named_message(diagnostic) if named else diagnostic.message
        print(f"{indent}{diagnostic.severity.value}: {message} [{diagnostic.code}]", file=out)
        if diagnostic.hint:
            print(f"{indent}  hint: {diagnostic.hint}", file=out)


def print_run_diagnostics(
    diagnostics: Sequence[Diagnostic], called: Collection[str], *, quiet: bool, verbose: bool
) -> None:
    """After ``call`` and ``command``: the called package's warnings and errors (``called``:
    the names it goes by — the owner of the tool, the package it stands for), and the run's
    own (no package); the other packages' in one line, or each of them with ``verbose``.
    ``quiet``: errors only, of the called package and the run."""
    least = Severity.ERROR if quiet else Severity.WARNING
    if verbose:
        print_diagnostics(diagnostics, least=least, named=True)
        return
    mine = {None, *called}
    ours = [d for d in diagnostics if d.package in mine]
    print_diagnostics(ours, least=least, named=True)
    if quiet:
        return
    others = {d.package for d in diagnostics if d.package not in mine}
    others &= {d.package for d in diagnostics if d.severity is not Severity.INFO}
    if others:
        many = len(others) > 1
        # An error is said as one: "have warnings" of a package that failed hid it.
        failed = sorted(
            str(d.package) for d in diagnostics
            if d.package in others and d.severity is Severity.ERROR
        )  # fmt: skip
        failed = list(dict.fromkeys(failed))
        what = "warnings"
        if failed:
            named = ", ".join(printable_line(p) for p in failed[:3])
            what = f"warnings or errors (errors: {named}{', …' if len(failed) > 3 else ''})"
        print(
            f"{len(others)} other package{'s' if many else ''} {'have' if many else 'has'} "
            f"{what}: -v shows them (or gateway list, gateway status)",
            file=sys.stderr,
        )


def print_json(data: Any, out: TextIO | None = None) -> None:
    """Exact values, as JSON any UTF-8 stream carries (lone surrogates escaped)."""
    out = raw_stream(out or sys.stdout)
    out.write(json_text(data) + "\n")


def fail(message: str) -> None:
    print(f"gateway: error: {message}", file=sys.stderr)


def refuse(diagnostic: Diagnostic, *, as_json: bool = False) -> None:
    """One line with the code on stderr; with ``--json`` the refusal as JSON on stdout."""
    if as_json:
        print_json({"error": diagnostic.message, "diagnostics": [diagnostic.to_dict()]})
    else:
        print(f"gateway: error: {diagnostic.message} [{diagnostic.code}]", file=sys.stderr)
