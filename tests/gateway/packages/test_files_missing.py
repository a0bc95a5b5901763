"""A package whose installed folder is gone (deleted by hand, a disk cleaned): every verb
says so and how to get it back, and none calls it merely "not trusted"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.gateway.packages._helpers import nanobot


@pytest.fixture
def gone(tmp_path: Path, run_cli) -> tuple[Path, Path]:
    """``gone``: installed, trusted and enabled, then its installed folder removed."""
    home = tmp_path / "home"
    source = nanobot(tmp_path / "gone", "gone")
    assert run_cli(home, "install", str(source)).returncode == 0
    assert run_cli(home, "trust", "gone").returncode == 0
    assert run_cli(home, "enable", "gone").returncode == 0
    status = json.loads(run_cli(home, "status", "--json").stdout)["packages"][0]
    shutil.rmtree(status["path"])
    return home, source


def test_status_and_doctor_say_the_files_are_missing_and_how_to_install_again(
    gone: tuple[Path, Path], run_cli
) -> None:
    home, source = gone
    listed = run_cli(home, "list", "--packages").stdout
    assert "inactive: its installed files are missing" in listed and "not trusted" not in listed
    status = json.loads(run_cli(home, "status", "--json").stdout)["packages"][0]
    assert status["gates"]["installed"] is False and status["gates"]["trusted"] is False
    assert status["reasons"] == ["its installed files are missing"]
    doctor = run_cli(home, "doctor").stdout
    line = next(i for i, text in enumerate(doctor.splitlines()) if "package gone" in text)
    fix = doctor.splitlines()[line + 1]
    assert f"fix: gateway install {source}" in fix and "gateway trust" not in fix, doctor


def test_trust_refuses_and_inspect_does_not_read_the_empty_place(
    gone: tuple[Path, Path], run_cli
) -> None:
    home, source = gone
    trusted = run_cli(home, "trust", "gone")
    assert trusted.returncode == 1
    assert trusted.stdout.startswith("package gone is not trusted\n"), trusted.stdout
    assert f"hint: gateway install {source}" in trusted.stdout
    inspected = run_cli(home, "inspect", "gone")
    assert inspected.returncode == 1 and inspected.stdout == ""
    assert "gone: its installed files are missing at " in inspected.stderr
    assert f"install it again: gateway install {source}" in inspected.stderr
