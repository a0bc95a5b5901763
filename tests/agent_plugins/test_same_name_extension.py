"""An installed plugin and a workspace ``extension.json`` extension of the same name both run,
and each keeps its own: the registration cache of the plugin is never written with the
extension's tools, and the extension's start never counts as the plugin's (found in a
user's home: an installed Codex plugin ``notes`` beside the examples' extension ``notes``
listed the extension's ``save_note`` as the plugin's, its own tools gone, from the second
load on)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests._cli_runner import cli_json

from ._helpers import lite_calc, write_plugin

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _home(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    home, project = tmp_path / "home", tmp_path / "project"
    extension = project / ".nimlet" / "extensions" / "notes"
    extension.mkdir(parents=True)
    # It registers after the plugin's server has: the last to register was written over
    # the plugin's cached registration.
    slow = {"tools": ["save_note"], "before_register": "slow", "start_delay": 1.0}
    (extension / "config.json").write_text(json.dumps(slow))
    command = [
        sys.executable,
        str(FIXTURES / "scripted_extension.py"),
        str(extension / "config.json"),
    ]
    (extension / "extension.json").write_text(json.dumps({"name": "notes", "command": command}))
    plugin = write_plugin(
        tmp_path / "src" / "notes",
        servers={"calc": {"type": "stdio", "command": "python3",
                          "args": ["${PLUGIN_ROOT}/calc.py"]}},
    )  # fmt: skip
    lite_calc(plugin)
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for verb in (("install", str(plugin)), ("trust", "notes"), ("enable", "notes")):
        cli_json(home, *verb, env=env)
    return home, project, env


def _owned(listing: dict) -> dict[str, str]:
    return {tool["name"]: tool["owner"] for tool in listing["tools"]}


def test_each_keeps_its_own_tools_on_every_load(tmp_path: Path) -> None:
    home, project, env = _home(tmp_path)
    ws = ("--workspace", str(project), "--trust")
    # The first load starts both and caches the plugin's start; the next ones list the
    # plugin from its cache while the extension starts again, registering last.
    listings = [cli_json(home, "list", *ws, env=env) for _ in range(3)]
    for listing in listings:
        owned = _owned(listing)
        plugin_tools = {name for name, owner in owned.items() if owner != owned["save_note"]}
        assert {"save_note", "mcp_notes_add"} <= set(owned)
        assert "mcp_notes_add" in plugin_tools and "save_note" not in plugin_tools
        codes = {d["code"] for d in listing["diagnostics"]}
        assert "registry.tool_overridden" not in codes, listing["diagnostics"]


def test_the_extensions_failure_is_not_the_plugins(tmp_path: Path) -> None:
    home, project, env = _home(tmp_path)
    # It ends without registering, after the plugin's server has registered.
    ends = "import time; time.sleep(1.0); raise SystemExit(3)"
    manifest = {"name": "notes", "command": [sys.executable, "-c", ends]}
    (project / ".nimlet" / "extensions" / "notes" / "extension.json").write_text(
        json.dumps(manifest)
    )
    cli_json(home, "list", "--workspace", str(project), "--trust", env=env)
    [package] = cli_json(home, "status", env=env)["packages"]
    assert package["id"] == "notes"
    assert package["active"] is True and package["load_failure"] is None
