"""``gateway inspect ID`` of an installed package shows what it registered at its last
start, read from the registration cache (never by starting it)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gateway.host._registrations import RegistrationCache
from gateway.wire import RegisterMessage
from tests.gateway.packages._helpers import nanobot

PACKAGE = "seen.pkg"


@pytest.fixture
def home(tmp_path: Path, run_cli) -> Path:
    home = tmp_path / "home"
    done = run_cli(home, "install", str(nanobot(tmp_path / "src", PACKAGE)), "--json")
    assert done.returncode == 0, done.stderr
    return home


def _register(**fields: object) -> RegisterMessage:
    return RegisterMessage.model_validate({"type": "register", "commands": [], **fields})


def _inspect(run_cli, home: Path) -> dict:
    done = run_cli(home, "inspect", PACKAGE, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_package_that_never_started_is_not_observed_yet(home: Path, run_cli) -> None:
    assert _inspect(run_cli, home)["registered"] is None
    text = run_cli(home, "inspect", PACKAGE).stdout
    assert "not observed yet: it has not started" in text


def test_its_tools_commands_and_hooks_from_its_last_start_are_shown(home: Path, run_cli) -> None:
    register = _register(
        tools=[{"name": "look", "description": "looks", "input_schema": {"type": "object"}}],
        commands=[{"name": "peek", "description": "peeks"}],
        events=["tool_call"],
    )
    RegistrationCache(home).store(PACKAGE, "some-old-key", register, None)
    registered = _inspect(run_cli, home)["registered"]
    assert [t["name"] for t in registered["tools"]] == ["look"]
    assert [c["name"] for c in registered["commands"]] == ["peek"]
    assert registered["hooks"] == ["tool_call"]
    text = run_cli(home, "inspect", PACKAGE).stdout
    assert "Registered (observed at its last start on " in text and "look" in text


def test_the_date_is_when_the_document_was_written(home: Path, run_cli) -> None:
    RegistrationCache(home).store(PACKAGE, "k", _register(), None)
    (path,) = (home / "cache" / "registrations").glob("*.json")
    os.utime(path, (1_700_000_000, 1_700_000_000))
    assert _inspect(run_cli, home)["registered"]["observed_at"] == "2023-11-14T22:13:20+00:00"


def test_its_part_of_a_shared_process_is_read_by_owner(home: Path, run_cli) -> None:
    owners = {"tools": {"mine": PACKAGE, "theirs": "other"}, "events": {"input": ["other"]}}
    spec = {"description": "", "input_schema": {"type": "object"}}
    register = _register(
        tools=[{"name": "mine", **spec}, {"name": "theirs", **spec}],
        events=["input"],
        gateway={"owners": owners},
    )
    RegistrationCache(home).store("group:g", "k", register, None)
    registered = _inspect(run_cli, home)["registered"]
    assert [t["name"] for t in registered["tools"]] == ["mine"] and registered["hooks"] == []


def test_inspect_does_not_import_the_host(home: Path, run_cli) -> None:
    import subprocess
    import sys

    probe = (
        "import sys; from gateway.cli._main import main; main(['inspect', sys.argv[1], '--json']);"
        "assert 'gateway.host._registrations' not in sys.modules"
    )
    env = {**os.environ, "GATEWAY_HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", probe, PACKAGE], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
