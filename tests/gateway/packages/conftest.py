"""`run_cli`: the `gateway` command line in this process (fast), for the package verbs.

A fixture (pytest's monkeypatch and capsys); tests/gateway/packages/_helpers.cli runs the same in
this process without them (tests/_cli.py), as a subprocess only from inside an async test."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gateway.cli import _output, main

RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> RunCli:
    def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
        user = home.parent / "user"
        user.mkdir(parents=True, exist_ok=True)
        for name in [name for name in os.environ if name.startswith("GATEWAY_")]:
            monkeypatch.delenv(name)
        monkeypatch.setenv("GATEWAY_HOME", str(home))
        monkeypatch.setenv("HOME", str(user))
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
