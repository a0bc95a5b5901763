"""Conformance: what the gateway reads of an Agent Plugin equals what the independent
reader (``agent-plugins`` from PyPI, a dev dependency used only here) reads — the same name,
skills and servers — and both refuse what the specification says to refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agent_plugins
import pytest

from adapters.agent_plugins import AgentPluginsAdapter
from gateway.base.agent_plugins import MCP_SCHEMA_ID

from ._helpers import DEMO, skill_text, write_plugin

STDIO = {"type": "stdio", "command": "python3", "args": ["${PLUGIN_ROOT}/s.py"]}

CASES: dict[str, dict[str, Any]] = {
    "valid": {"skills": {"one": skill_text("one"), "two": skill_text("two")},
              "servers": {"a": STDIO, "b": {**STDIO, "cwd": "${PLUGIN_DATA}"}}},
    "invalid-manifest": {"manifest": {"name": "Not-Valid"}},
    "unknown-field": {"manifest": {"commands": ["x"]}, "skills": {"one": skill_text("one")}},
    "bad-server-entry": {"servers": {"a": STDIO, "b": {**STDIO, "shell": "bash"},
                                     "c": {**STDIO, "env": {"PLUGIN_DATA": "/x"}}}},
    "http-server": {"servers": {"a": STDIO,
                                "h": {"type": "streamable-http", "url": "https://x.example/mcp"},
                                "s": {"type": "sse", "url": "https://y.example/sse"}}},
    "remote-url-rules": {"servers": {
        "plain": {"type": "streamable-http", "url": "http://example.com/mcp"},
        "loop": {"type": "streamable-http", "url": "http://127.0.0.1:8000/mcp"},
        "local": {"type": "sse", "url": "http://localhost/sse"},
        "v6": {"type": "sse", "url": "http://[::1]:9/sse"},
        "user": {"type": "streamable-http", "url": "https://u:p@example.com/mcp"},
        "fragment": {"type": "streamable-http", "url": "https://example.com/mcp#x"},
        "twice": {"type": "streamable-http", "url": "https://example.com/mcp",
                  "headers": {"X-A": "1", "x-a": "2"}},
        "badname": {"type": "streamable-http", "url": "https://example.com/mcp",
                    "headers": {"Bad Name": "1"}},
        "ok": {"type": "streamable-http", "url": "https://example.com/mcp",
               "headers": {"X-Tenant": "t"}}}},
    "unknown-version": {"manifest": {
        "$schema": "https://agent-plugins.org/schemas/1.1.0/plugin.schema.json"}},
}  # fmt: skip


def reference(root: Path) -> dict[str, Any] | None:
    """The independent reader's view; None when it refuses the plugin."""
    try:
        plugin = agent_plugins.Plugin(root)
        name = plugin.manifest.name
    except agent_plugins.ValidationError:
        return None
    try:
        servers = plugin.mcp.servers if plugin.mcp is not None else {}
    except agent_plugins.ValidationError:  # §7.2.2: MCP disabled, the plugin loads
        servers = {}
    return {
        "name": name,
        "skills": sorted(s.name for s in plugin.skills),
        "servers": {n: s.type for n, s in servers.items()},
    }


def gateway(root: Path) -> dict[str, Any] | None:
    entry = AgentPluginsAdapter().inspect(root)
    if not entry.ok:
        return None
    return {
        "name": entry.id,
        "skills": sorted(c.name for c in entry.contributions if c.kind == "skill"),
        "servers": {
            c.name: c.detail["transport"] for c in entry.contributions if c.kind == "mcp_server"
        },
    }


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_gateway_reads_what_the_independent_reader_reads(tmp_path: Path, case: str) -> None:
    spec = CASES[case]
    root = write_plugin(tmp_path / "plugin", spec.get("manifest"), spec.get("servers"),
                        spec.get("skills"))  # fmt: skip
    assert gateway(root) == reference(root)


def test_the_demo_fixture_agrees_with_the_independent_reader() -> None:
    assert gateway(DEMO) == reference(DEMO)


def test_the_launch_plan_matches_the_reference_stdio_resolution(tmp_path: Path) -> None:
    root = write_plugin(tmp_path / "plugin", servers={"a": {**STDIO, "env": {
        "X": "${PLUGIN_DATA}/x"}, "cwd": "${PLUGIN_DATA}"}})  # fmt: skip
    (root / "s.py").write_text("")
    home = tmp_path / "home"
    adapter = AgentPluginsAdapter()
    entry = adapter.inspect(root)
    assert adapter.plan_launch(entry, home) is not None
    import json

    from adapters._host_plan import config_file

    ours = json.loads(config_file(home, entry.id).read_text())["servers"]["a"]
    plugin = agent_plugins.Plugin(root)
    assert plugin.mcp is not None
    theirs = plugin.mcp.resolve_stdio("a", data_dir=ours["env"]["PLUGIN_DATA"], base_env={})
    assert ours["args"] == list(theirs.args)
    assert ours["cwd"] == str(theirs.cwd)
    for key in ("X", "PLUGIN_ROOT", "PLUGIN_DATA"):
        assert ours["env"][key] == theirs.env[key]
    assert Path(ours["command"]).name == Path(str(theirs.command)).name


def test_mcp_json_version_must_be_1_0_for_both(tmp_path: Path) -> None:
    mcp = {"$schema": MCP_SCHEMA_ID.replace("1.0.0", "1.1.0"), "mcpServers": {"a": STDIO}}
    root = write_plugin(tmp_path / "plugin", mcp=mcp)
    assert gateway(root) == reference(root)


# Where the independent reader (0.2.4) is more lenient than the specification's text, the
# gateway follows the text and released nanobot; each such case is pinned here, so a change
# on either side shows.


def test_a_command_with_whitespace_is_refused_as_nanobot_refuses_it(tmp_path: Path) -> None:
    """§7.2.1: one executable token, not a shell string (nanobot 0.3: no whitespace)."""
    servers = {"a": {"type": "stdio", "command": "python3 -m x"}, "b": STDIO}
    root = write_plugin(tmp_path / "plugin", servers=servers)
    assert gateway(root)["servers"] == {"b": "stdio"}  # type: ignore[index]
    assert reference(root)["servers"] == {"a": "stdio", "b": "stdio"}  # type: ignore[index]


@pytest.mark.parametrize(
    ("folder", "text"),
    [("a", skill_text("b")), ("Abc", skill_text("Abc")), ("a--b", skill_text("a--b")),
     ("a_b", skill_text("a_b")), ("a", skill_text("a", "x" * 1025))],
    ids=["name-not-folder", "uppercase", "double-hyphen", "underscore", "long-description"],
)  # fmt: skip
def test_a_skill_breaking_the_agent_skills_identity_is_skipped_as_nanobot_skips_it(
    tmp_path: Path, folder: str, text: str
) -> None:
    """§7.1 and the Agent Skills specification (nanobot 0.3's ``valid_skill_metadata``); the
    independent reader lists every folder with a SKILL.md."""
    root = write_plugin(tmp_path / "plugin", skills={folder: text, "c": skill_text("c")})
    assert gateway(root)["skills"] == ["c"]  # type: ignore[index]
    assert reference(root)["skills"] == sorted([folder, "c"])  # type: ignore[index]
