"""The Claude Code plugin adapter: detection, the manifest, commands, skills, subagents,
hooks and MCP servers read without running anything, and the plugin host's launch."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from adapters import _codes as adapters_codes
from adapters.claude_plugins import ClaudePluginsAdapter
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._commands import expand
from adapters.registry import ADAPTERS, detect_ecosystem, inspect_package
from gateway.model import Adapter, CatalogEntry, LaunchSpec, ServesResources

ADAPTER = ClaudePluginsAdapter()


def _plugin(root: Path, manifest: dict[str, Any] | None = None, **files: str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    data = {"name": "demo"} if manifest is None else manifest
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(data))
    for rel, text in files.items():
        path = root / rel.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _codes(entry: CatalogEntry) -> list[str]:
    return [d.code for d in entry.diagnostics]


def test_it_is_an_adapter_that_serves_resources() -> None:
    assert isinstance(ADAPTER, Adapter) and isinstance(ADAPTER, ServesResources)


def test_a_claude_plugin_is_detected_before_nimlet(tmp_path: Path) -> None:
    root = _plugin(tmp_path, **{"skills__s__SKILL.md": "---\nname: s\ndescription: d\n---\n"})
    names = [adapter.ecosystem for adapter in detect_ecosystem(root)]
    assert names[0] == "claude"
    order = [adapter.ecosystem for adapter in ADAPTERS]
    assert order.index("claude") < order.index("nimlet")


def test_the_manifest_name_is_the_id_and_must_be_kebab_case(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path, {"name": "My_Plugin", "version": "1.2.0"}))
    assert entry.ecosystem == "claude" and entry.id == "My_Plugin" and entry.version == "1.2.0"
    assert codes.CLAUDE_MANIFEST_INVALID.code in _codes(entry)


def test_a_manifest_without_a_name_is_an_error(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path / "folder", {"description": "x"}))
    assert entry.id == "folder" and not entry.ok
    assert any("`name` is required" in d.message for d in entry.diagnostics)


def test_unknown_manifest_fields_are_named(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path, {"name": "demo", "colour": "blue"}))
    assert _codes(entry) == [codes.CLAUDE_MANIFEST_FIELD_UNKNOWN.code] and entry.ok


def test_a_manifest_path_that_leaves_the_plugin_is_refused(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path / "p", {"name": "demo", "commands": "../x"}))
    assert adapters_codes.PATH_ESCAPE.code in _codes(entry)


def test_commands_become_prompts_with_their_front_matter(tmp_path: Path) -> None:
    root = _plugin(
        tmp_path,
        **{
            "commands__review.md": "---\ndescription: Review a PR\nargument-hint: '[pr]'\n"
            "model: opus\n---\nReview PR #$ARGUMENTS\n",
            "extra__deploy.md": "Deploy $0 to $1\n",
        },
    )
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "demo", "commands": ["./extra/deploy.md"]})
    )
    entry = inspect_package(root)
    prompts = {c.name: c for c in entry.contributions if c.kind == "prompt"}
    assert set(prompts) == {"review", "deploy"}
    assert prompts["review"].description == "Review a PR"
    assert prompts["review"].detail["argument_hint"] == "[pr]"
    ignored = [d for d in entry.diagnostics if d.code == codes.CLAUDE_COMMAND_FIELD_IGNORED.code]
    assert len(ignored) == 1 and "`model`" in ignored[0].message
    served = {p.name: p for p in ADAPTER.package_resources(entry).prompts}
    review, deploy = served["review"], served["deploy"]
    assert review.expand is not None and deploy.expand is not None
    assert review.expand(review.body, "42") == "Review PR #42"
    assert deploy.expand(deploy.body, "api staging") == "Deploy api to staging"
    assert deploy.description == "Deploy $0 to $1"  # no description: the first line


def test_nested_commands_are_named_by_their_path_or_their_front_matter(tmp_path: Path) -> None:
    root = _plugin(
        tmp_path,
        **{
            "commands__git__commit.md": "Commit\n",
            "commands__renamed.md": "---\nname: better\n---\nBody\n",
            "commands__hidden.md": "---\nuser-invocable: false\n---\nFor the model only\n",
        },
    )
    entry = inspect_package(root)
    assert sorted(c.name for c in entry.contributions) == ["better", "git:commit"]
    (message,) = [d.message for d in entry.diagnostics]
    assert "commands/hidden.md" in message and "user-invocable" in message


def test_arguments_is_everything_typed() -> None:
    assert expand("Fix #$ARGUMENTS now", ' 12 "a b" ') == 'Fix # 12 "a b"  now'


def test_indexed_arguments_count_from_zero_and_respect_quotes() -> None:
    body = "$ARGUMENTS[0] | $1 | $0 | $2"
    assert expand(body, '"my widget" React') == "my widget | React | my widget | "


def test_named_arguments_follow_the_front_matter_order() -> None:
    body = "Migrate $component from $from to $to ($components)"
    got = expand(body, "SearchBar React Vue", names=("component", "from", "to"))
    assert got == "Migrate SearchBar from React to Vue ($components)"


def test_arguments_are_appended_when_the_body_has_no_placeholder() -> None:
    assert expand("Do the thing.", "quickly") == "Do the thing.\n\nARGUMENTS: quickly"
    assert expand("Do the thing.", "  ") == "Do the thing."


def test_values_are_not_substituted_again_and_the_root_is_expanded() -> None:
    body = "Run ${CLAUDE_PLUGIN_ROOT}/x.sh $0"
    assert expand(body, "$ARGUMENTS", root="/opt/p") == "Run /opt/p/x.sh $ARGUMENTS"


def test_an_unclosed_quote_falls_back_to_plain_words() -> None:
    assert expand("$0/$1", 'a "b') == 'a/"b'


def test_skills_are_listed(tmp_path: Path) -> None:
    root = _plugin(
        tmp_path, **{"skills__pdf__SKILL.md": "---\nname: pdf\ndescription: PDFs\n---\n"}
    )
    entry = inspect_package(root)
    skills = ADAPTER.package_resources(entry).skills
    assert [(s.name, s.description) for s in skills] == [("pdf", "PDFs")]


def test_agents_are_reported_unsupported_by_name(tmp_path: Path) -> None:
    root = _plugin(tmp_path, **{"agents__reviewer.md": "---\nname: reviewer\n---\nYou review.\n"})
    entry = inspect_package(root)
    assert entry.metadata["agents"] == ["reviewer"]
    (message,) = [d.message for d in entry.diagnostics]
    assert "reviewer" in message and _codes(entry) == [codes.CLAUDE_COMPONENT_UNSUPPORTED.code]


def test_hooks_are_read_with_unsupported_events_named(tmp_path: Path) -> None:
    hooks = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "y"}]}],
        }
    }
    entry = inspect_package(_plugin(tmp_path, **{"hooks__hooks.json": json.dumps(hooks)}))
    assert [(c.kind, c.name, c.target) for c in entry.contributions] == [
        ("hook", "PreToolUse", "tool_call")
    ]
    assert _codes(entry) == [adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED.code]
    assert "Stop" not in entry.metadata["hooks"]["hooks"]
    assert entry.runtime == "python-sidecar"


def test_only_unsupported_hooks_start_nothing(tmp_path: Path) -> None:
    hooks = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "y"}]}]}}
    entry = inspect_package(_plugin(tmp_path, **{"hooks__hooks.json": json.dumps(hooks)}))
    assert entry.runtime == "declarative"
    assert ADAPTER.plan_launch(entry, tmp_path / "home") is None


def test_inline_manifest_hooks_merge_with_hooks_json(tmp_path: Path) -> None:
    inline = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "b"}]}]}}
    on_disk = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a"}]}]}}
    root = _plugin(
        tmp_path, {"name": "demo", "hooks": inline}, **{"hooks__hooks.json": json.dumps(on_disk)}
    )
    groups = inspect_package(root).metadata["hooks"]["hooks"]["PreToolUse"]
    assert [g["hooks"][0]["command"] for g in groups] == ["a", "b"]


def test_a_manifest_naming_the_default_files_reads_them_once(tmp_path: Path) -> None:
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a"}]}]}}
    manifest = {"name": "demo", "hooks": "./hooks/hooks.json", "mcpServers": "./.mcp.json"}
    root = _plugin(
        tmp_path,
        manifest,
        **{
            "hooks__hooks.json": json.dumps(hooks),
            ".mcp.json": json.dumps({"s": {"command": "x"}}),
        },
    )
    entry = inspect_package(root)
    assert len(entry.metadata["hooks"]["hooks"]["PreToolUse"]) == 1
    assert list(entry.metadata["mcp_servers"]) == ["s"] and entry.diagnostics == []


def test_malformed_hooks_json_is_a_diagnostic(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path, **{"hooks__hooks.json": "{not json"}))
    assert _codes(entry) == [adapters_codes.JSON_INVALID.code] and entry.runtime == "declarative"


def test_mcp_servers_in_both_of_claudes_forms(tmp_path: Path) -> None:
    wrapped = {"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db", "args": ["-v"]}}}
    root = _plugin(
        tmp_path,
        {"name": "demo", "mcpServers": {"web": {"type": "http", "url": "https://x"}}},
        **{".mcp.json": json.dumps(wrapped)},
    )
    entry = inspect_package(root)
    assert [c.name for c in entry.contributions if c.kind == "mcp_server"] == ["db", "web"]
    assert entry.metadata["remote_servers"] == {
        "web": {"transport": "streamable-http", "url": "https://x", "headers": {}}
    }
    assert [(p.name, p.optional) for p in entry.permissions] == [("network:x:443", True)]
    assert _codes(entry) == []
    flat = _plugin(tmp_path / "flat", **{".mcp.json": json.dumps({"s": {"command": "srv"}})})
    assert inspect_package(flat).metadata["mcp_servers"] == {
        "s": {"command": "srv", "args": [], "env": {}}
    }


def test_a_malformed_mcp_server_is_skipped_with_a_diagnostic(tmp_path: Path) -> None:
    servers = {"mcpServers": {"bad": {"command": "x", "args": "-v"}, "ok": {"command": "y"}}}
    entry = inspect_package(_plugin(tmp_path, **{".mcp.json": json.dumps(servers)}))
    assert list(entry.metadata["mcp_servers"]) == ["ok"]
    assert _codes(entry) == [codes.CLAUDE_MCP_INVALID.code]


def test_the_plugin_host_is_planned_with_its_config(tmp_path: Path) -> None:
    servers = {"mcpServers": {"db": {"command": "sh", "args": ["${CLAUDE_PLUGIN_ROOT}/db.sh"],
                                     "env": {"D": "${CLAUDE_PLUGIN_DATA}"}}}}  # fmt: skip
    hooks = {"hooks": {"PreToolUse": [{"hooks": [{"command": "bash ${CLAUDE_PLUGIN_ROOT}/h"}]}]}}
    root = _plugin(
        tmp_path / "plugin",
        **{".mcp.json": json.dumps(servers), "hooks__hooks.json": json.dumps(hooks)},
    )
    entry = inspect_package(root)
    home = tmp_path / "home"
    spec = ADAPTER.plan_launch(entry, home)
    assert isinstance(spec, LaunchSpec)
    assert spec.command[1:4] == ["-P", "-m", "adapters.plugin_host"]
    assert spec.command[4] == "--config"
    config_file = Path(spec.command[5])
    assert config_file.is_relative_to(home) and config_file in spec.reads
    assert oct(config_file.stat().st_mode & 0o777) == "0o600"
    config = json.loads(config_file.read_text())
    data = config["data_dir"]
    assert config["package"] == "demo" and config["root"] == str(root)
    assert config["tool_names"] == "claude"
    # The plugin host's own rules (adapters/_host_plan.py): the command resolved when the
    # launch is planned, no bytecode written into the installed plugin.
    assert config["servers"] == {
        "db": {"command": shutil.which("sh"), "args": [f"{root}/db.sh"],
               "env": {"D": data, "PYTHONDONTWRITEBYTECODE": "1"}, "cwd": str(root)}
    }  # fmt: skip
    assert config["hooks"] == hooks
    assert Path(data) in spec.writes
    assert spec.response_timeout == 65.0  # the default hook timeout, 60 s, and a margin


def test_the_launch_reads_the_interpreters_hooks_name_outside_system_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "opt" / "tool" / "bin"
    tools.mkdir(parents=True)
    (tools / "mytool").write_text("#!/bin/sh\n")
    (tools / "mytool").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    script = "#!/usr/bin/env mytool\n"
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"command": "${CLAUDE_PLUGIN_ROOT}/s.sh"}]}]}}
    root = _plugin(tmp_path / "p", **{"s.sh": script, "hooks__hooks.json": json.dumps(hooks)})
    spec = ADAPTER.plan_launch(inspect_package(root), tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    assert tmp_path / "opt" / "tool" in spec.reads


def test_a_plugin_of_commands_and_skills_starts_nothing(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path, **{"commands__a.md": "Hi $ARGUMENTS\n"}))
    assert entry.runtime == "declarative"
    assert ADAPTER.plan_launch(entry, tmp_path / "home") is None


def test_remote_headers_naming_a_secret_are_kept_and_undeclared_options_refused(
    tmp_path: Path,
) -> None:
    servers = {"mcpServers": {
        "api": {"type": "http", "url": "https://api.example.com/mcp",
                "headers": {"X-Key": "${API_KEY}", "X-Org": "${ORG:-acme}"}},
        "opt": {"type": "sse", "url": "https://opt.example.com/sse",
                "headers": {"Authorization": "Bearer ${user_config.api_token}"}},
    }}  # fmt: skip
    entry = inspect_package(_plugin(tmp_path, **{".mcp.json": json.dumps(servers)}))
    assert list(entry.metadata["remote_servers"]) == ["api"]
    assert entry.secrets == ["API_KEY", "ORG"]
    [said] = entry.diagnostics
    assert said.code == "remote_mcp.header_user_config" and "user_config.api_token" in said.message
