"""``run_cli``: the ``gateway`` command line in this process (its ``main``, as a shell would
call it), for the tests whose subject is not the CLI's process: no interpreter start and no
imports per verb. What the verb starts (a plugin host, a sidecar, a server) is still a real
process. A test that needs the process itself (its signals, its exit, a warm session) runs
``python -m gateway`` instead.

``run_cli(home, *args, env=..., user=...)``: GATEWAY_HOME ``home``, HOME ``user`` (by
default ``home``'s sibling ``user``, the working directory too), no other ``GATEWAY_*``
variable of the suite's, then ``env`` — as ``tests/nanobot/_helpers.cli`` runs the
subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gateway.cli import _output, main

RunCli = Callable[..., subprocess.CompletedProcess[str]]

__all__ = ["RunCli", "cli_json", "run_cli"]


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> RunCli:
    def run(
        home: Path, *args: str, env: dict[str, str] | None = None, user: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        user = user or home.parent / "user"
        user.mkdir(parents=True, exist_ok=True)
        for name in [name for name in os.environ if name.startswith("GATEWAY_")]:
            monkeypatch.delenv(name)
        monkeypatch.setenv("GATEWAY_HOME", str(home))
        monkeypatch.setenv("HOME", str(user))
        for name, value in (env or {}).items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(user)
        capsys.readouterr()
        # print_json / print_diagnostics bind sys.stdout / sys.stderr as default arguments
        # at import time; point them at the streams capsys installed.
        monkeypatch.setattr(_output.print_json, "__defaults__", (sys.stdout,))
        monkeypatch.setattr(_output.print_diagnostics, "__defaults__", (sys.stderr,))
        try:
            code = main(list(args))
        except SystemExit as exit:  # argparse usage errors
            code = exit.code if isinstance(exit.code, int) else 2
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["gateway", *args], code, out, err)

    return run


def cli_json(run_cli: RunCli, home: Path, *args: str, code: int = 0, **options: Any) -> Any:
    """``run_cli(home, *args, "--json")``, its exit code checked, its output read."""
    done = run_cli(home, *args, "--json", **options)
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)
