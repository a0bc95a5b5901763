"""Fault injection: a process SIGKILLed at any step of install, reinstall or uninstall
leaves the store usable and the package either wholly as it was or wholly as it became;
garbage collection then removes what the killed process left behind."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest

from gateway.packages import collect_garbage, load_adapters
from gateway.store import STATE_FILE, content_hash
from tests.gateway.packages._helpers import (
    REPO,
    install_from,
    make_ready,
    nanobot,
    recorded,
    staging_leftovers,
    version_folders,
)

PACKAGE = "fault.pkg"
PERMISSION = "workspace.read"
INSTALL_STEPS = ("start", "fetched", "verified", "prepared", "placed", "recorded", "none")
UNINSTALL_STEPS = ("unrecorded", "none")
# Which state each run must leave: None (no package), "old" or "new".
EXPECTED = {
    **{
        ("install", step): "new" if step in ("recorded", "none") else None for step in INSTALL_STEPS
    },
    **{
        ("reinstall", step): "new" if step in ("recorded", "none") else "old"
        for step in INSTALL_STEPS
    },
    **{("uninstall", step): None for step in UNINSTALL_STEPS},
}
VERSIONS = {"old": "1.0.0", "new": "2.0.0"}


@dataclass
class Run:
    home: Path
    returncode: int


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    """Every (action, step) run in its own home, by one child process forking per run."""
    root = tmp_path_factory.mktemp("faults")
    old = nanobot(root / "old", PACKAGE, version="1.0.0", permissions=[PERMISSION])
    new = nanobot(
        root / "new", PACKAGE, version="2.0.0", permissions=[PERMISSION], files={"new.txt": "2"}
    )
    spec = []
    for action, step in EXPECTED:
        home = root / f"{action}-{step}"
        if action != "install":
            install_from(home, old)
            make_ready(home, PACKAGE)
        verb, target = ("uninstall", PACKAGE) if action == "uninstall" else ("install", str(new))
        spec.append([verb, str(home), target, step])
    done = subprocess.run(
        [sys.executable, "-m", "tests.gateway.packages._fault_child", json.dumps(spec)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    codes = json.loads(done.stdout)
    return {
        key: Run(Path(home), code)
        for key, (_, home, _, _), code in zip(EXPECTED, spec, codes, strict=True)
    }


def integrity(home: Path) -> list[str]:
    with closing(sqlite3.connect(home / STATE_FILE)) as conn:
        return [row[0] for row in conn.execute("PRAGMA integrity_check")]


@pytest.mark.parametrize(("action", "step"), list(EXPECTED), ids=[f"{a}-{s}" for a, s in EXPECTED])
def test_killed_at_a_step_leaves_the_old_or_the_new_package_whole(
    runs: dict[tuple[str, str], Run], action: str, step: str
) -> None:
    run = runs[action, step]
    assert run.returncode == (0 if step == "none" else -signal.SIGKILL)
    expected = EXPECTED[action, step]
    packages = recorded(run.home)  # the store opens
    if (run.home / STATE_FILE).exists():
        assert integrity(run.home) == ["ok"]
    if expected is None:
        assert packages == []
    else:
        (package,) = packages
        record = package.record
        assert record.version == VERSIONS[expected]
        assert record.path.is_dir()
        assert content_hash(record.path)[0] == record.content_hash  # the files it names
        assert load_adapters().inspect(record.path).version == record.version
        assert (record.path / "new.txt").exists() == (expected == "new")
        assert package.granted == ({PERMISSION} if action == "reinstall" else frozenset())
        assert package.enabled == (action == "reinstall")
        # Trust survives only where the content it was given for survives.
        assert package.trusted == (action == "reinstall" and expected == "old")

    in_use = {package.record.path for package in packages}
    orphans = (version_folders(run.home) - in_use) | set(staging_leftovers(run.home))
    assert bool(orphans) == (step != "none")  # a killed install leaves at least its staging
    removed = collect_garbage(run.home, min_age=0)
    assert set(removed) == orphans
    assert version_folders(run.home) == in_use
    assert staging_leftovers(run.home) == []
    assert recorded(run.home) == packages  # collecting touched no record
