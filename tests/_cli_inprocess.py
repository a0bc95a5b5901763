"""``gateway ARGS`` run in this process, as the ecosystems' tests saw it run as a subprocess:
``GATEWAY_HOME`` and ``HOME`` in the test's folder, none of this process's other
``GATEWAY_*`` variables, the current directory the user's home, ``stdin`` a pipe holding the
given text (else ``/dev/null``), stdout and stderr captured — and the same
``subprocess.CompletedProcess`` back.

A ``gateway`` process costs ~1 s of CPU to start (the interpreter and the CLI's imports) and
does nothing the verbs under test need: where a test is about what a verb does, not about
the process, it runs here (the sidecars and runtimes the verb starts are still real
processes). Where the process itself matters — an environment variable that the gateway's
own interpreter must see (``PYTHONPATH``), a terminal — the tests keep a real subprocess.

Everything the run changes is put back: the environment, the current directory and the
standard streams (``gateway.cli.main`` given ``argv`` restores its own wrapping of them)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

__all__ = ["run_gateway"]


@contextlib.contextmanager
def _environment(home: Path, user: Path, extra: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    try:
        for name in [n for n in os.environ if n.startswith("GATEWAY_")]:
            del os.environ[name]
        os.environ.update(GATEWAY_HOME=str(home), HOME=str(user), **extra)
        # What a subprocess with piped output saw: no terminal, no warm session, the
        # tables' fall-back width (COLUMNS, when the run had one, is inherited as before).
        os.environ["GATEWAY_SESSION"] = "off"
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _stdin(text: str | None) -> Iterator[None]:
    if text is None:
        stream = open(os.devnull, encoding="utf-8")  # noqa: SIM115  (closed below)
    else:
        data = text.encode()
        read, write = os.pipe()
        if len(data) > 60_000:  # a pipe's buffer: what the tests write is far smaller
            raise ValueError("stdin too long for a pipe written before the run")
        os.write(write, data)
        os.close(write)
        stream = open(read, encoding="utf-8")  # noqa: SIM115  (closed below)
    saved = sys.stdin
    sys.stdin = stream
    try:
        yield
    finally:
        sys.stdin = saved
        stream.close()


def run_gateway(
    home: Path,
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    user: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` with ``GATEWAY_HOME=home`` and ``HOME=user`` (``home``'s parent by
    default) and ``env`` added to the environment, in ``cwd`` (the user's home by default);
    its exit code and output. Not ``PYTHONPATH``: this interpreter's path was made when it
    started (a test about it runs a subprocess)."""
    from gateway.cli import _output, main

    if env and "PYTHONPATH" in env:
        raise ValueError("PYTHONPATH changes nothing in this process: run a subprocess")

    user = user or home.parent
    out, err = io.StringIO(), io.StringIO()
    streams = sys.stdout, sys.stderr
    defaults = _output.print_diagnostics.__defaults__
    before = Path.cwd()
    with _environment(home, user, env or {}), _stdin(stdin):
        os.chdir(cwd or user)
        sys.stdout, sys.stderr = out, err
        # print_diagnostics binds sys.stderr as a default argument when it is imported.
        _output.print_diagnostics.__defaults__ = (err,)
        try:
            code = main(list(args))
        except SystemExit as exit:  # argparse's usage errors, --help
            code = exit.code if isinstance(exit.code, int) else 2
        finally:
            sys.stdout, sys.stderr = streams
            _output.print_diagnostics.__defaults__ = defaults
            os.chdir(before)
    return subprocess.CompletedProcess(["gateway", *args], code, out.getvalue(), err.getvalue())
