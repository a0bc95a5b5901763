"""A result made once per test run and shared by every module (and xdist worker) that asks:
the first to ask makes it under a file lock and leaves it as a pickle named after the run
(xdist's ``testrun_uid``), so nothing is ever read from an earlier run. Used for the static
audit of the packed real packages (tests/gateway/audit/_npm_audit.py) and the fidelity
harness's quick run (tests/_fidelity_quick.py)."""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["once_per_run"]


def _shared_folder(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run sees: the parent of the workers' base folders
    under xdist, the run's own base folder without it."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _run_id(request: pytest.FixtureRequest) -> str:
    """xdist's ``testrun_uid``; without xdist (``-p no:xdist``) one process runs everything
    and the run's own base folder is already its alone."""
    try:
        return str(request.getfixturevalue("testrun_uid"))
    except pytest.FixtureLookupError:
        return "solo"


def once_per_run(
    name: str,
    make: Callable[[Path], Any],
    factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Any:
    """``make(folder)`` (a fresh folder of its own) the first time this run asks for ``name``;
    every call returns its own copy of that result. If ``make`` raises, nothing is kept: the
    next to ask makes it again (and fails the same way)."""
    path = _shared_folder(factory) / f"{name}-{_run_id(request)}.pickle"
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            result = make(factory.mktemp(name))
            partial = path.with_suffix(".partial")
            partial.write_bytes(pickle.dumps(result))
            partial.replace(path)
    return pickle.loads(path.read_bytes())
