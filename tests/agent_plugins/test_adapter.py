"""Reading an Agent Plugin: detection, the closed manifest, skills, mcp.json servers (one
bad entry skips that server only), remote servers reported, hints, and the launch plan."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from adapters._host_plan import config_file
from adapters.agent_plugins import AgentPluginsAdapter
from adapters.registry import detect_ecosystem, inspect_package
from gateway.sandbox import package_dirs

from ._helpers import DEMO, skill_text, write_plugin

ADAPTER = AgentPluginsAdapter()


def codes(entry) -> list[str]:
    return [d.code for d in entry.diagnostics]


def test_a_plugin_json_naming_the_agent_plugins_schema_is_detected_first(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "p", skills={"s": skill_text("s")})
    (root / "package.json").write_text('{"name": "p", "pi": {}}')
    assert detect_ecosystem(root)[0].ecosystem == "agent-plugins"


def test_a_plugin_json_without_the_schema_is_not_an_agent_plugin(tmp_path: Path) -> None:
    (tmp_path / "plugin.json").write_text('{"name": "x"}')
    assert not ADAPTER.detect(tmp_path)


def test_the_demo_fixture_reads_skills_and_servers(tmp_path: Path) -> None:
    entry = inspect_package(DEMO)
    assert (entry.ecosystem, entry.id, entry.version) == ("agent-plugins", "demo-plugin", "1.0.0")
    assert entry.runtime == "plugin-host"
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("skill", "greeting"), ("mcp_server", "calc"), ("mcp_server", "broken"),
        ("mcp_server", "remote"),
    ]  # fmt: skip
    assert codes(entry) == []
    remote = entry.contributions[-1].detail
    assert (remote["transport"], remote["grant"]) == (
        "streamable-http",
        "network:mcp.example.com:443",
    )
    assert [(p.name, p.optional) for p in entry.permissions] == [
        ("network:mcp.example.com:443", True)
    ]


def test_an_invalid_name_refuses_the_plugin(tmp_path: Path) -> None:
    entry = inspect_package(write_plugin(tmp_path / "p", {"name": "Bad--Name"},
                                         skills={"s": skill_text("s")}))  # fmt: skip
    assert "agent_plugins.manifest_invalid" in codes(entry)
    assert not entry.ok and entry.contributions == []


def test_an_unknown_field_is_reported_and_ignored(tmp_path: Path) -> None:
    entry = inspect_package(write_plugin(tmp_path / "p", {"hooks": "x"},
                                         skills={"s": skill_text("s")}))  # fmt: skip
    assert codes(entry) == ["agent_plugins.field_ignored"]
    assert entry.ok and [c.name for c in entry.contributions] == ["s"]


def test_a_wrong_typed_author_field_refuses_the_plugin(tmp_path: Path) -> None:
    entry = inspect_package(write_plugin(tmp_path / "p", {"author": {"name": 1}}))
    assert codes(entry) == ["agent_plugins.manifest_invalid"]


def test_another_schema_version_is_said_not_guessed(tmp_path: Path) -> None:
    manifest = {"$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json"}
    entry = inspect_package(write_plugin(tmp_path / "p", manifest))
    assert entry.ecosystem == "agent-plugins"
    assert codes(entry) == ["agent_plugins.schema_unknown"]


def test_a_bad_server_entry_skips_that_server_only(tmp_path: Path) -> None:
    servers = {
        "extra": {"type": "stdio", "command": "python3", "shell": True},
        "reserved": {"type": "stdio", "command": "python3", "env": {"PLUGIN_ROOT": "/x"}},
        "escape": {"type": "stdio", "command": "../bin/server"},
        "missing": {"type": "stdio", "command": "./bin/absent"},
        "cwd": {"type": "stdio", "command": "python3", "cwd": "${PLUGIN_DATA}/../x"},
        "good": {"type": "stdio", "command": "python3", "args": ["-V"]},
    }
    entry = inspect_package(write_plugin(tmp_path / "p", servers=servers))
    invalid = [d for d in entry.diagnostics if d.code == "agent_plugins.server_invalid"]
    assert sorted(d.contribution for d in invalid) == ["cwd", "escape", "extra", "missing",
                                                       "reserved"]  # fmt: skip
    assert [c.name for c in entry.contributions] == ["good"]


def test_a_bad_mcp_json_disables_servers_and_keeps_skills(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "p", skills={"s": skill_text("s")},
                        mcp={"$schema": "x", "mcpServers": {}})  # fmt: skip
    entry = inspect_package(root)
    assert codes(entry) == ["agent_plugins.mcp_invalid"]
    assert [c.name for c in entry.contributions] == ["s"] and entry.runtime == "declarative"


def test_an_mcp_json_without_schema_says_so_in_words(tmp_path: Path) -> None:
    """No `$schema` is said as missing, not as `$schema None is not …`."""
    root = write_plugin(tmp_path / "p", mcp={"mcpServers": {}})
    (said,) = [
        d for d in inspect_package(root).diagnostics if d.code == "agent_plugins.mcp_invalid"
    ]
    assert said.message.startswith("mcp.json: has no $schema (it must be https://"), said.message
    assert "None" not in said.message


def test_an_invalid_skill_is_skipped_and_the_others_load(tmp_path: Path) -> None:
    skills = {"ok": skill_text("ok"), "nofront": "just text", "misnamed": skill_text("other")}
    entry = inspect_package(write_plugin(tmp_path / "p", skills=skills))
    assert [c.name for c in entry.contributions] == ["ok"]
    assert set(codes(entry)) == {"package.skill_invalid"}


def test_a_package_runner_server_gets_a_network_grant_hint(tmp_path: Path) -> None:
    servers = {"db": {"type": "stdio", "command": "npx", "args": ["-y", "some-server"]}}
    entry = inspect_package(write_plugin(tmp_path / "p", servers=servers))
    [hint] = entry.diagnostics
    assert hint.code == "agent_plugins.server_needs_network"
    assert hint.hint == "gateway permissions p network"


def test_skills_only_plans_no_process(tmp_path: Path) -> None:
    entry = inspect_package(write_plugin(tmp_path / "p", skills={"s": skill_text("s")}))
    assert ADAPTER.plan_launch(entry, tmp_path / "home") is None
    [skill] = ADAPTER.package_resources(entry).skills
    assert skill.name == "s" and skill.path == tmp_path / "p" / "skills" / "s" / "SKILL.md"


def test_the_launch_plan_resolves_commands_and_expands_placeholders(tmp_path: Path) -> None:
    home = tmp_path / "home"
    entry = inspect_package(DEMO)
    spec = ADAPTER.plan_launch(entry, home)
    assert spec is not None and spec.command[-2:] == ["--config", str(config_file(home, entry.id))]
    config = json.loads(config_file(home, entry.id).read_text())
    data, _ = package_dirs(home, entry.id, create=False)
    calc = config["servers"]["calc"]
    assert Path(calc["command"]).name.startswith("python3")
    assert calc["args"] == [f"{DEMO}/servers/calc.py"]
    assert calc["env"]["CALC_GREETING"] == f"hello from {DEMO}"
    assert (calc["env"]["PLUGIN_ROOT"], calc["env"]["PLUGIN_DATA"]) == (str(DEMO), str(data))
    assert calc["cwd"] == str(data) and config["servers"]["broken"]["cwd"] == str(DEMO)
    assert set(config["servers"]) == {"calc", "broken"}  # the remote one is not started
    assert config_file(home, entry.id) in spec.reads and data in spec.writes
    assert Path(sys.prefix) in spec.reads or Path(sys.base_prefix) in spec.reads
    assert config_file(home, entry.id).stat().st_mode & 0o077 == 0


def test_a_command_not_on_path_is_a_launch_diagnostic(tmp_path: Path) -> None:
    servers = {"x": {"type": "stdio", "command": "no-such-program-here"}}
    entry = inspect_package(write_plugin(tmp_path / "p", servers=servers))
    spec = ADAPTER.plan_launch(entry, tmp_path / "home")
    assert spec is not None
    assert [d.code for d in spec.diagnostics] == ["agent_plugins.command_not_found"]


def test_a_plugin_relative_command_resolves_inside_the_plugin(tmp_path: Path) -> None:
    notes = DEMO.parent / "notes"
    entry = inspect_package(notes)
    home = tmp_path / "home"
    spec = ADAPTER.plan_launch(entry, home)
    assert spec is not None and spec.diagnostics == []
    server = json.loads(config_file(home, entry.id).read_text())["servers"]["notes"]
    assert server["command"] == str((notes / "server.py").resolve())
    data, _ = package_dirs(home, entry.id, create=False)
    assert server["args"] == ["--store", f"{data}/notes.txt"] and server["cwd"] == str(notes)
    assert (notes / "server.py").resolve() in spec.reads


def test_a_plugin_relative_command_escaping_by_symlink_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("")
    root = write_plugin(tmp_path / "p", servers={"x": {"type": "stdio", "command": "./link"}})
    (root / "link").symlink_to(outside)
    entry = inspect_package(root)
    assert [d.code for d in entry.diagnostics if d.contribution == "x"] == [
        "agent_plugins.server_invalid"
    ]


def test_a_cwd_under_plugin_root_must_be_a_folder_inside_the_plugin(tmp_path: Path) -> None:
    servers = {
        "ok": {"type": "stdio", "command": "python3", "cwd": "${PLUGIN_ROOT}/sub"},
        "absent": {"type": "stdio", "command": "python3", "cwd": "${PLUGIN_ROOT}/nowhere"},
        "relative": {"type": "stdio", "command": "python3", "cwd": "sub"},
    }
    root = write_plugin(tmp_path / "p", servers=servers)
    (root / "sub").mkdir()
    entry = inspect_package(root)
    assert [c.name for c in entry.contributions] == ["ok"]
    assert sorted(
        d.contribution for d in entry.diagnostics if d.code == "agent_plugins.server_invalid"
    ) == ["absent", "relative"]
