"""``cli`` (and the fixture ``run_cli``): the ``gateway`` command line in this process (its
``main``, as a shell would call it), for the tests whose subject is not the CLI's process:
no interpreter start and no imports per verb. What the verb starts (a plugin host, a
sidecar, a server) is still a real process. A test that needs the process itself (its
signals, its exit, a warm session, a verb that waits while the test acts) runs ``python -m
gateway`` instead.

``cli(home, *args, env=..., user=...)``: GATEWAY_HOME ``home``, HOME ``user`` (by default
``home``'s sibling ``user``, the working directory too), no other ``GATEWAY_*`` variable of
the suite's, then ``env`` — as ``tests/nanobot/_helpers.cli`` runs the subprocess. Usable
from a module-scoped fixture too."""

from __future__ import annotations

import io
import json
import os
import subprocess
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from gateway.cli import _output, main

RunCli = Callable[..., subprocess.CompletedProcess[str]]

__all__ = ["RunCli", "cli", "cli_json", "run_cli"]


def cli(
    home: Path, *args: str, env: dict[str, str] | None = None, user: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` run by its ``main`` in this process; the environment, the working
    directory and the output streams are put back after it."""
    user = user or home.parent / "user"
    user.mkdir(parents=True, exist_ok=True)
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("GATEWAY_")]:
            patch.delenv(name)
        patch.setenv("GATEWAY_HOME", str(home))
        patch.setenv("HOME", str(user))
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        patch.chdir(user)
        # print_json / print_diagnostics bind sys.stdout / sys.stderr as default arguments
        # at import time; point them at this run's streams.
        patch.setattr(_output.print_json, "__defaults__", (out,))
        patch.setattr(_output.print_diagnostics, "__defaults__", (err,))
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit:  # argparse usage errors
                code = exit.code if isinstance(exit.code, int) else 2
    return subprocess.CompletedProcess(["gateway", *args], code, out.getvalue(), err.getvalue())


@pytest.fixture
def run_cli() -> RunCli:
    """``cli`` as a fixture (what the tests that take it were written against)."""
    return cli


def cli_json(home: Path, *args: str, code: int = 0, **options: Any) -> Any:
    """``cli(home, *args, "--json")``, its exit code checked, its output read."""
    done = cli(home, *args, "--json", **options)
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)
