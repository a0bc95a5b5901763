"""``gateway`` command lines run in the test's own process (``gateway.cli.main``), as
``python -m gateway`` would run them: the environment, working folder and standard streams
the subprocess would get (stdin a pipe; stdout and stderr captured as text), put back after.

A subprocess pays Python's start and the CLI's imports for each command line (``gateway
list`` on an empty home: ~0.7 s of CPU, measured on the 2-core machine). For the tests of what a verb does, prints and exits with. What only a process shows — its
start, its imports, its ``os._exit``, a signal, its environment as the kernel sees it, bytes
no text stream carries — keeps ``python -m gateway`` (``tests/gateway/test_cli_start.py``,
``test_cli_first_errors.py``, ``test_printable_output.py``, …).

The extensions the command starts are real child processes either way; a verb that leaves a
process behind (``gateway session start``) is not for this runner. Inside an async test the
CLI cannot run its own event loop in this thread: ``run_gateway`` then starts the process.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

__all__ = ["gateway_env", "run_gateway", "run_here"]


def gateway_env(home: Path, user: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The suite's environment without its ``GATEWAY_*`` variables, with ``GATEWAY_HOME``
    ``home``, ``HOME`` ``user`` and then ``extra``: what a command line under test sees."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(user), **(extra or {}))
    return env


@contextlib.contextmanager
def _stdin(text: str | None) -> Iterator[io.TextIOWrapper]:
    """A pipe holding ``text`` and closed at its writing end, as ``subprocess.run(input=…)``
    gives (nothing: at end at once). The shell reads its descriptor, not ``sys.stdin``'s
    buffer."""
    data = (text or "").encode()
    read_end, write_end = os.pipe()
    if len(data) > 60_000:  # a pipe holds 64 KiB: the tests never send that much
        os.close(read_end)
        os.close(write_end)
        raise ValueError("stdin too long for run_here")
    os.write(write_end, data)
    os.close(write_end)
    stream = open(read_end, encoding="utf-8")  # noqa: SIM115 - closed below
    try:
        yield stream
    finally:
        stream.close()


class _Told(io.StringIO):
    """Captured text, each write told to ``tell`` as well."""

    def __init__(self, tell: Callable[[str], None]) -> None:
        super().__init__()
        self._tell = tell

    def write(self, text: str) -> int:
        self._tell(text)
        return super().write(text)


def run_here(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | str,
    stdin: str | None = None,
    on_stderr: Callable[[str], None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run([python, "-m", "gateway", *args], env=env, cwd=cwd, input=stdin,
    capture_output=True, text=True)``, in this process. ``on_stderr`` is given each text
    written to stderr as it is written (captured all the same): what a test reads while the
    verb waits, the verb run in a thread of its own (``tests/plugin_host/test_auth_cli``)."""
    from gateway.cli import main

    env = dict(env)  # a copy: it may be os.environ itself
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), (io.StringIO() if on_stderr is None else _Told(on_stderr))
    with _stdin(stdin) as given:
        try:
            os.environ.clear()
            os.environ.update(env)
            os.chdir(cwd)
            sys.stdin, sys.stdout, sys.stderr = given, out, err
            try:
                code = main(list(args))
            except SystemExit as exit:  # argparse: usage errors and --help
                if isinstance(exit.code, str):  # what the interpreter does with it
                    print(exit.code, file=sys.stderr)
                code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved_streams
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_env)
    return subprocess.CompletedProcess(["gateway", *args], code, out.getvalue(), err.getvalue())


def _in_event_loop() -> bool:
    import sniffio

    try:
        sniffio.current_async_library()
    except sniffio.AsyncLibraryNotFoundError:
        return False
    return True


def run_gateway(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | str,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``run_here``; from inside an async test (an event loop running in this thread, which
    the CLI's own ``anyio.run`` refuses), ``python -m gateway`` as a subprocess."""
    if not _in_event_loop():
        return run_here(args, env=env, cwd=cwd, stdin=stdin)
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(env),
        cwd=cwd,
        timeout=timeout,
    )
