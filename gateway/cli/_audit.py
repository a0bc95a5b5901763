"""``gateway audit``: compatibility reports for packages (docs/audit.md, docs/cli.md).

Exit codes: 0 when every package was audited and no ``--fail-on`` gate failed; 1 when a
package could not be fetched or read, or a gate failed; 2 for bad usage (including a
``--load`` nobody confirmed).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from gateway.audit import audit, failures, parse_fail_on, read_sources, render
from gateway.base import GatewayConfig, counted, printable, raw_stream
from gateway.cli import _codes
from gateway.cli._output import refuse

__all__ = ["run_audit"]


def run_audit(args: argparse.Namespace, config: GatewayConfig) -> int:
    try:
        gates = parse_fail_on(args.fail_on)
        sources = list(args.sources)
        if args.from_file:
            sources += read_sources(Path(args.from_file))
    except ValueError as error:
        refuse(_invalid()(str(error)))
        return 2
    except OSError as error:
        refuse(_invalid()(f"--from {args.from_file}: {error.strerror or error}"))
        return 2
    if not sources:
        refuse(_invalid()("name at least one package (SRC) or --from FILE"))
        return 2
    confirmed_by = None
    if args.load:
        confirmed_by = _confirm(args, len(sources))
        if confirmed_by is None:
            refuse(
                _codes.LOAD_UNCONFIRMED(
                    "--load not confirmed: pass --yes, or answer y on a terminal"
                )
            )
            return 2
    with _progress(sys.stderr) as progress:
        report = audit(
            sources, load=args.load, confirmed_by=confirmed_by, config=config, progress=progress
        )
    text = render(report, args.format)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"gateway: wrote the {args.format} report to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    problems = failures(report, gates)
    for problem in problems:
        print(f"gateway: audit: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _invalid() -> Any:
    return _codes.ARGUMENT_INVALID


def _confirm(args: argparse.Namespace, count: int) -> str | None:
    if args.yes:
        return "--yes"
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None
    print(
        f"--load runs the code of {counted(count, 'package')} once, in a throwaway sandbox "
        "(private home, no network, nothing of yours writable). Go on? [y/N] ",
        end="",
        file=sys.stderr,
        flush=True,
    )
    answer = sys.stdin.readline().strip().lower()
    return "prompt" if answer in ("y", "yes") else None


@contextmanager
def _progress(stream: TextIO) -> Iterator[Callable[[int, int, str], None]]:
    """A progress bar on a terminal (rich), one plain line per package elsewhere (stderr:
    the report on stdout stays clean)."""
    if not stream.isatty():

        def plain(index: int, total: int, source: str) -> None:
            if source:
                print(f"gateway: auditing {index + 1}/{total}: {source}", file=stream, flush=True)

        yield plain
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("auditing"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
    )
    with Progress(*columns, console=Console(file=raw_stream(stream)), transient=True) as bar:
        task = bar.add_task("", total=None)

        def live(index: int, total: int, source: str) -> None:
            bar.update(task, total=total, completed=index, description=printable(source))

        yield live
