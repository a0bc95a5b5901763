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

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests._cli import gateway_env, run_here

RunCli = Callable[..., subprocess.CompletedProcess[str]]

__all__ = ["RunCli", "cli", "cli_json", "run_cli"]


def cli(
    home: Path, *args: str, env: dict[str, str] | None = None, user: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` run by its ``main`` in this process (``tests._cli.run_here``: the
    environment, the working directory and the streams are put back after it)."""
    user = user or home.parent / "user"
    user.mkdir(parents=True, exist_ok=True)
    return run_here(args, env=gateway_env(home, user, env), cwd=user)


@pytest.fixture
def run_cli() -> RunCli:
    """``cli`` as a fixture (what the tests that take it were written against)."""
    return cli


def cli_json(home: Path, *args: str, code: int = 0, **options: Any) -> Any:
    """``cli(home, *args, "--json")``, its exit code checked, its output read."""
    done = cli(home, *args, "--json", **options)
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)
