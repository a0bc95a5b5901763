"""The Codex plugin reader, by Codex's own rules: refused manifests, dropped component paths,
default components, a root Agent Plugin read as Codex reads it, apps and remote servers
named as unsupported, a marketplace said to be one, and hooks passed on as Codex's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.codex import CodexAdapter
from gateway.base.agent_plugins import MCP_SCHEMA_ID, PLUGIN_SCHEMA_ID
from gateway.model import CatalogEntry

SKILL = "---\nname: {0}\ndescription: Does {0}.\n---\nBody.\n"


def plugin(root: Path, manifest: dict[str, Any] | str | None, **files: str) -> CatalogEntry:
    root.mkdir(parents=True, exist_ok=True)
    if manifest is not None:
        (root / ".codex-plugin").mkdir()
        text = manifest if isinstance(manifest, str) else json.dumps(manifest)
        (root / ".codex-plugin" / "plugin.json").write_text(text)
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content)
    return CodexAdapter().inspect(root)


def found(entry: CatalogEntry) -> list[tuple[str, str | None]]:
    return [(d.code, d.contribution) for d in entry.diagnostics]


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ({"name": 3}, "name is a number"),
        ({"name": "p", "version": 2}, "expected string"),
        ({"name": "p", "interface": []}, "interface is an array"),
        ("[]", None),
    ],
)
def test_a_manifest_codex_refuses_is_refused_with_a_code(
    tmp_path: Path, manifest: dict[str, Any] | str, problem: str | None
) -> None:
    entry = plugin(tmp_path / "p", manifest)
    assert not entry.ok
    if problem is not None:
        assert (
            problem
            in dict((d.code, d.message) for d in entry.diagnostics)["codex.manifest_invalid"]
        )


def test_an_unnamed_plugin_takes_its_folders_name_and_default_components(tmp_path: Path) -> None:
    entry = plugin(tmp_path / "demo", {}, **{"skills/a/SKILL.md": SKILL.format("a")})
    assert entry.ok and entry.id == "demo"
    assert [c.name for c in entry.contributions if c.kind == "skill"] == ["demo:a"]


def test_a_component_path_without_dot_slash_is_dropped_with_a_code(tmp_path: Path) -> None:
    entry = plugin(tmp_path / "p", {"name": "p", "skills": "skills", "mcpServers": "../x.json"},
                   **{"skills/a/SKILL.md": SKILL.format("a")})  # fmt: skip
    assert entry.ok and not [c for c in entry.contributions if c.kind == "skill"]
    assert [code for code, _ in found(entry)].count("codex.field_ignored") == 2


def test_servers_apps_and_bad_entries(tmp_path: Path) -> None:
    servers = {"s": {"command": "python3", "args": ["x.py"]}, "h": {"url": "https://x.example"},
               "none": {"args": []}, "typed": {"command": "x", "args": "y"}}  # fmt: skip
    entry = plugin(tmp_path / "p", {"name": "p"},
                   **{".mcp.json": json.dumps({"mcpServers": servers}),
                      ".app.json": json.dumps({"apps": {"gh": {"id": "connector_1"}}})})  # fmt: skip
    assert entry.metadata["stdio_servers"] == {"s": {"command": "python3", "args": ["x.py"]}}
    assert ("codex.remote_server", "h") in found(entry)
    assert ("codex.server_invalid", "none") in found(entry)
    assert ("codex.server_invalid", "typed") in found(entry)
    assert ("codex.app_unsupported", "gh") in found(entry)


def test_hooks_are_passed_on_and_a_bad_hooks_file_is_a_code(tmp_path: Path) -> None:
    hooks = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]
        }
    }
    good = plugin(tmp_path / "a", {"name": "a"}, **{"hooks/hooks.json": json.dumps(hooks)})
    assert good.metadata["hooks"] == hooks and good.runtime == "plugin-host"
    bad = plugin(tmp_path / "b", {"name": "b"}, **{"hooks/hooks.json": '{"hooks": []}'})
    assert "codex.hooks_invalid" in [code for code, _ in found(bad)]


def test_a_root_agent_plugin_is_read_as_codex_reads_it(tmp_path: Path) -> None:
    root = tmp_path / "ap"
    (root / ".codex-plugin").mkdir(parents=True)
    (root / ".codex-plugin" / "plugin.json").write_text('{"interface": {"displayName": "AP"}}')
    (root / "plugin.json").write_text(json.dumps({"$schema": PLUGIN_SCHEMA_ID, "name": "ap"}))
    (root / "mcp.json").write_text(
        json.dumps(
            {
                "$schema": MCP_SCHEMA_ID,
                "mcpServers": {
                    "s": {"type": "stdio", "command": "python3", "args": ["${PLUGIN_ROOT}/s.py"]}
                },
            }
        )
    )
    (root / "skills" / "one").mkdir(parents=True)
    (root / "skills" / "one" / "SKILL.md").write_text(SKILL.format("one"))
    entry = CodexAdapter().inspect(root)
    assert entry.ok and entry.id == "ap" and entry.metadata["agent_plugin"]
    assert [c.name for c in entry.contributions if c.kind == "skill"] == ["ap:one"]
    assert entry.metadata["interface"] == {"displayName": "AP"}
    assert set(entry.metadata["stdio_servers"]) == {"s"}


def test_a_marketplace_folder_is_said_to_be_one(tmp_path: Path) -> None:
    market = {
        "name": "m",
        "plugins": [{"name": "one", "source": {"source": "local", "path": "./plugins/one"}}],
    }
    entry = plugin(tmp_path / "m", None, **{".agents/plugins/marketplace.json": json.dumps(market)})
    assert not entry.ok
    message = dict((d.code, d.message) for d in entry.diagnostics)["codex.marketplace"]
    assert "one (./plugins/one)" in message
