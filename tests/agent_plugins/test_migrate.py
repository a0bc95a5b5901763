"""``gateway migrate`` takes an Agent Plugin as input: to nimlet, its skills are copied and
its stdio servers carried over (served by the gateway's plugin host through ``gateway serve
--nimlet``); a remote server is said not to carry over."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from gateway.migrate import migrate
from tests.migrate._helpers import config_for
from tests.serve._helpers import GATEWAY

from ._helpers import DEMO, lite_calc


def test_an_agent_plugin_migrates_to_nimlet(tmp_path: Path) -> None:
    out, home = tmp_path / "out", tmp_path / "home"
    migration = migrate(str(DEMO), "nimlet", out, config=config_for(home),
                        gateway_command=GATEWAY)  # fmt: skip
    report = migration.to_dict()
    carried = {(item["kind"], item["name"]) for item in report["carried"]}
    assert {("skill", "greeting"), ("mcp_server", "calc"), ("mcp_server", "broken")} <= carried
    assert ("mcp_server", "remote") not in carried
    notes = [n for n in report["not_carried"] if n["code"] == "migrate.not_carried"]
    assert [n["contribution"] for n in notes] == ["remote"]
    extension = json.loads((out / ".nimlet" / "extensions" / "demo-plugin" /
                            "extension.json").read_text())  # fmt: skip
    command = extension["command"]
    assert command[command.index("--package") + 1] == "demo-plugin"
    assert (out / ".agents" / "skills" / "greeting" / "SKILL.md").is_file()


def test_the_migrated_extension_serves_the_plugins_tools(tmp_path: Path) -> None:
    """What a nimlet host does with the output: start its command and call a tool. The
    demo copied with its calc server as the standard-library twin (tests/_lite_mcp): what is
    tested is the migrated command serving the plugin, not the SDK's server, whose contract
    test_plugin_host.py and test_cli.py keep."""
    out, home = tmp_path / "out", tmp_path / "home"
    demo = shutil.copytree(DEMO, tmp_path / "src" / "demo")
    lite_calc(demo / "servers")
    migrate(str(demo), "nimlet", out, config=config_for(home), gateway_command=GATEWAY)
    from gateway.store import StateStore

    with StateStore.open(home) as store:
        store.set_trusted("demo-plugin", True)
        store.set_enabled("demo-plugin", True)
    extension = json.loads((out / ".nimlet" / "extensions" / "demo-plugin" /
                            "extension.json").read_text())  # fmt: skip
    lines = [
        {"type": "initialize", "version": 1, "workspace": str(tmp_path), "session_id": "1"},
        {"type": "tool", "id": "1", "name": "mcp_demo-plugin--calc_add",
         "arguments": {"a": 20, "b": 22}},
    ]  # fmt: skip
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    with subprocess.Popen(extension["command"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, env=env, cwd=tmp_path,
                          text=True) as process:  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(lines[0]) + "\n")
        process.stdin.flush()
        register = json.loads(process.stdout.readline())
        assert "mcp_demo-plugin--calc_add" in {t["name"] for t in register["tools"]}
        process.stdin.write(json.dumps(lines[1]) + "\n")
        process.stdin.flush()
        reply = json.loads(process.stdout.readline())
        assert reply["content"] == [{"type": "text", "text": "42"}]
        process.stdin.write('{"type": "shutdown"}\n')
        process.stdin.close()
        assert process.wait(30) == 0
