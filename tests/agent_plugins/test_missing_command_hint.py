"""An Agent Plugin whose server command is not on PATH: ``status`` and ``doctor`` say the
same thing to do (install the command, or PATH) — the hint of
``agent_plugins.command_not_found``, one text — where ``doctor`` said ``gateway logs``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests._cli_runner import cli, cli_json

from ._helpers import write_plugin

COMMAND = "no-such-server-here"


def test_status_and_doctor_give_the_same_hint_for_a_missing_server_command(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    plugin = write_plugin(
        tmp_path / "src" / "gone", servers={"calc": {"type": "stdio", "command": COMMAND}}
    )
    cli_json(home, "install", str(plugin))
    cli_json(home, "trust", "gone")
    cli_json(home, "enable", "gone")
    cli(home, "list", "--workspace", str(project))  # its start fails: remembered

    [package] = cli_json(home, "status")["packages"]
    assert package["active"] is False and COMMAND in package["load_failure"]
    [missing] = [d for d in package["diagnostics"]
                 if d["code"] == "agent_plugins.command_not_found"]  # fmt: skip
    hint = missing["hint"]
    assert hint.startswith(f"install {COMMAND} (or put the folder holding it on PATH)")
    assert f"  hint: {hint}" in cli(home, "status").stdout

    checks = {c["name"]: c for c in cli_json(home, "doctor", code=1)["checks"]}
    check = checks["package gone"]
    assert check["status"] == "fail"
    assert check["fix"] == f"{hint}; then `gateway list` starts it again"
    assert "gateway logs" not in check["fix"]
    assert f"fix: {hint}" in cli(home, "doctor").stdout


def test_a_package_that_failed_to_start_otherwise_still_points_at_its_logs(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    extension = tmp_path / "src" / "dies"
    extension.mkdir(parents=True)
    (extension / "extension.json").write_text(json.dumps({"name": "dies", "command": ["./run.sh"]}))
    (extension / "run.sh").write_text("#!/bin/sh\nexit 3\n")
    (extension / "run.sh").chmod(0o755)
    cli_json(home, "install", str(extension))
    cli_json(home, "trust", "dies")
    cli_json(home, "enable", "dies")
    cli(home, "list", "--workspace", str(project))
    checks = {c["name"]: c for c in cli_json(home, "doctor", code=1)["checks"]}
    assert checks["package dies"]["fix"] == "gateway logs dies; then `gateway list` starts it again"


def test_a_plugin_renamed_for_a_clash_points_at_its_own_logs_with_its_servers_last_words(
    tmp_path: Path,
) -> None:
    """A workspace extension called ``notes`` and an installed plugin ``notes`` both run: one
    of them is ``notes#2`` in the registry, but ``gateway logs`` knows the plugin by its id."""
    home, project = tmp_path / "home", tmp_path / "project"
    extension = project / ".nimlet" / "extensions" / "notes"
    extension.mkdir(parents=True)
    scripted = Path(__file__).resolve().parents[1] / "fixtures" / "scripted_extension.py"
    (extension / "config.json").write_text(json.dumps({"tools": ["save_note"]}))
    command = [sys.executable, str(scripted), str(extension / "config.json")]
    (extension / "extension.json").write_text(json.dumps({"name": "notes", "command": command}))
    plugin = write_plugin(
        tmp_path / "src" / "notes",
        servers={"calc": {"type": "stdio", "command": "sh",
                          "args": ["-c", "echo 'no module named calc_sdk' >&2; exit 3"]}},
    )  # fmt: skip
    cli_json(home, "install", str(plugin))
    cli_json(home, "trust", "notes")
    cli_json(home, "enable", "notes")
    listing = cli_json(home, "list", "--workspace", str(project), "--trust")
    [failed] = [d for d in listing["diagnostics"]
                if d["code"] == "agent_plugins.no_server_started"]  # fmt: skip
    assert failed["hint"] == "gateway logs notes"
    assert failed["message"].endswith("; it said: no module named calc_sdk")
    assert "no module named calc_sdk" in cli(home, "logs", "notes").stdout
