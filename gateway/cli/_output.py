"""Human output: plain aligned tables and one-line errors."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from ..diagnostics import Diagnostic


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], out: TextIO) -> None:
    print(f"{title} ({len(rows)})", file=out)
    if not rows:
        print("  (none)", file=out)
        return
    cells = [[_one_line(cell) for cell in row] for row in rows]
    widths = [max(len(headers[i]), *(len(row[i]) for row in cells)) for i in range(len(headers))]
    print(
        "  " + "  ".join(h.upper().ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(),
        file=out,
    )
    for row in cells:
        print(
            "  " + "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip(),
            file=out,
        )


def _one_line(value: str, limit: int = 72) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def diagnostics_table(diagnostics: Sequence[Diagnostic], out: TextIO) -> None:
    rows = [(d.severity.value, d.code, d.message) for d in diagnostics]
    table("Diagnostics", ("severity", "code", "message"), rows, out)


def print_diagnostics(diagnostics: Sequence[Diagnostic], out: TextIO = sys.stderr) -> None:
    for diagnostic in diagnostics:
        print(f"{diagnostic.severity.value}: {diagnostic.message} [{diagnostic.code}]", file=out)


def print_json(data: Any, out: TextIO = sys.stdout) -> None:
    json.dump(data, out, indent=2, ensure_ascii=False, default=str)
    out.write("\n")


def fail(message: str) -> None:
    print(f"gateway: error: {message}", file=sys.stderr)


def refuse(diagnostic: Diagnostic, *, as_json: bool = False) -> None:
    """One line with the code on stderr; with ``--json`` the refusal as JSON on stdout."""
    if as_json:
        print_json({"error": diagnostic.message, "diagnostics": [diagnostic.to_dict()]})
    else:
        print(f"gateway: error: {diagnostic.message} [{diagnostic.code}]", file=sys.stderr)
