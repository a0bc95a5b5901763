"""A Claude Code plugin's ``userConfig``: options read by Claude Code's option schema,
non-sensitive ones set with ``gateway config`` (typed), sensitive ones with ``gateway
secret``; their values in ``${user_config.KEY}`` of the servers and as
``CLAUDE_PLUGIN_OPTION_<KEY>`` in the plugin's processes; a required one without a value
refuses the launch, saying how to set it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters._host_plan import config_file
from adapters.claude_plugins import ClaudePluginsAdapter
from adapters.registry import inspect_package
from gateway import open_gateway
from gateway.model import LaunchRefusal, LaunchSpec
from gateway.packages import install, load_adapters, write_package_config
from gateway.packages.secrets import set_secret
from gateway.store import StateStore
from tests._cli import gateway_env, run_here

OPTIONS = {
    "endpoint": {"type": "string", "title": "Endpoint", "description": "API base URL",
                 "required": True},
    "retries": {"type": "number", "title": "Retries", "description": "How often",
                "default": 3, "min": 0, "max": 10},
    "token": {"type": "string", "title": "Token", "description": "API token",
              "sensitive": True, "required": True},
}  # fmt: skip


def _plugin(root: Path, options: Any = OPTIONS, **extra: Any) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": "configured", "userConfig": options, **extra}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    return root


def _server_plugin(root: Path) -> Path:
    server = {
        "command": sys.executable,
        "args": ["-c", "pass", "--url", "${user_config.endpoint}", "${user_config.nope}"],
        "env": {"TOKEN": "${user_config.token}"},
    }
    return _plugin(root, mcpServers={"api": server})


def _install(home: Path, source: Path) -> str:
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


def test_options_are_settings_and_secrets_typed_by_their_schema(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path / "p"))
    assert entry.secrets == ["token"]
    assert entry.config_keys == ["endpoint", "retries"] and entry.config_closed
    properties = entry.metadata["config_schema"]["properties"]
    assert properties["retries"] == {"type": "number", "minimum": 0, "maximum": 10}
    assert "token" not in properties


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ({"type": "color", "title": "T", "description": "D"}, "`type` must be one of"),
        ({"type": "string", "description": "D"}, "`title` (text) is required"),
        ({"type": "string", "title": "T", "description": "D", "secret": True}, "'secret'"),
        ({"type": "number", "title": "T", "description": "D", "default": "x"}, "`default`"),
    ],
)
def test_an_option_breaking_claudes_schema_is_named_and_ignored(
    tmp_path: Path, option: dict[str, Any], says: str
) -> None:
    entry = inspect_package(_plugin(tmp_path / "p", {"ok": OPTIONS["endpoint"], "bad": option}))
    (problem,) = [d for d in entry.diagnostics if d.code == "claude.user_config_invalid"]
    assert "userConfig.bad" in problem.message and says in problem.message
    assert entry.config_keys == ["ok"]


def test_an_option_key_must_be_an_identifier(tmp_path: Path) -> None:
    entry = inspect_package(_plugin(tmp_path / "p", {"two words": OPTIONS["endpoint"]}))
    assert [d.code for d in entry.diagnostics] == ["claude.user_config_invalid"]
    assert entry.config_keys == [] and not entry.config_closed


def test_a_required_option_without_a_value_refuses_the_launch(tmp_path: Path) -> None:
    home = tmp_path / "gateway"
    package_id = _install(home, _server_plugin(tmp_path / "p"))
    with StateStore.open(home) as store:
        entry = inspect_package(Path(store.get_package(package_id).record.path))
    write_package_config(home, package_id, {"endpoint": "https://api.example"})
    refusal = ClaudePluginsAdapter().plan_launch(entry, home)
    assert isinstance(refusal, LaunchRefusal)
    (missing,) = refusal.diagnostics
    assert missing.code == "claude.user_config_missing" and missing.contribution == "token"
    assert missing.hint == "gateway secret set configured token"
    assert missing.package == "configured"


def test_values_fill_the_servers_and_reach_their_environment(tmp_path: Path) -> None:
    home = tmp_path / "gateway"
    package_id = _install(home, _server_plugin(tmp_path / "p"))
    with StateStore.open(home) as store:
        entry = inspect_package(Path(store.get_package(package_id).record.path))
    write_package_config(home, package_id, {"endpoint": "https://api.example"})
    set_secret(home, package_id, "token", "s3cret")
    spec = ClaudePluginsAdapter().plan_launch(entry, home)
    assert isinstance(spec, LaunchSpec)
    server = json.loads(config_file(home, package_id).read_text())["servers"]["api"]
    assert server["args"][3:] == ["https://api.example", "${user_config.nope}"]
    assert server["env"]["TOKEN"] == "s3cret"
    assert server["env"]["CLAUDE_PLUGIN_OPTION_RETRIES"] == "3"  # its default
    assert spec.env["CLAUDE_PLUGIN_OPTION_ENDPOINT"] == "https://api.example"
    (unknown,) = [d for d in spec.diagnostics if d.code == "claude.user_config_invalid"]
    assert "${user_config.nope}" in unknown.message


def _hook_plugin(root: Path) -> Path:
    options = {"greeting": {"type": "string", "title": "G", "description": "D"}}
    command = 'echo "${user_config.greeting} / $CLAUDE_PLUGIN_OPTION_GREETING"'
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}
    return _plugin(root, options, hooks={"hooks": hooks})


@pytest.mark.anyio
async def test_a_hook_reads_an_option_from_its_environment_never_as_code(
    workspace: Any,
) -> None:
    marker = workspace.home / "ran"
    _install(workspace.config.home, _hook_plugin(workspace.home / "src" / "configured"))
    value = f"hi $(touch {marker})"
    write_package_config(workspace.config.home, "configured", {"greeting": value})
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        await gateway.start_session()
        started = await gateway.before_agent_start("hi", "Base.")
    assert started.system_prompt == f"Base.\n\n{value} / {value}"
    assert not marker.exists()


def test_gateway_config_and_secret_set_the_options(workspace: Any) -> None:
    _install(workspace.config.home, _plugin(workspace.home / "src" / "configured"))
    env = gateway_env(workspace.config.home, workspace.home)

    def gateway(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """The verb in this process (tests/_cli.run_here), stdin a pipe as a subprocess's."""
        return run_here(args, env=env, cwd=workspace.root, stdin=stdin)

    assert gateway("config", "configured", "retries", "5").returncode == 0
    too_many = gateway("config", "configured", "retries", "11")
    assert too_many.returncode == 1 and "maximum" in too_many.stderr
    unknown = gateway("config", "configured", "retry", "1")
    assert unknown.returncode == 1 and "its settings: endpoint, retries" in unknown.stderr
    assert gateway("secret", "set", "configured", "token", stdin="s3cret\n").returncode == 0
    shown = gateway("config", "configured", "--json")
    assert json.loads(shown.stdout)["config"] == {"retries": 5}


def test_a_remote_header_reads_a_declared_option_from_the_hosts_environment(
    tmp_path: Path,
) -> None:
    home = tmp_path / "gateway"
    remote = {"type": "http", "url": "https://api.example.com/mcp",
              "headers": {"Authorization": "Bearer ${user_config.token}"}}  # fmt: skip
    undeclared = {**remote, "headers": {"X-Org": "${user_config.org}"}}
    source = _plugin(tmp_path / "p", mcpServers={"api": remote, "other": undeclared})
    package_id = _install(home, source)
    with StateStore.open(home) as store:
        entry = inspect_package(Path(store.get_package(package_id).record.path))
    (refused,) = [d for d in entry.diagnostics if d.code == "remote_mcp.header_user_config"]
    assert "'other'" in refused.message and "org" in refused.message
    assert list(entry.metadata["remote_servers"]) == ["api"] and entry.secrets == ["token"]
    write_package_config(home, package_id, {"endpoint": "https://api.example"})
    set_secret(home, package_id, "token", "s3cret")
    spec = ClaudePluginsAdapter().plan_launch(entry, home)
    assert isinstance(spec, LaunchSpec)
    planned = json.loads(config_file(home, package_id).read_text())["remote"]["api"]
    assert planned["headers"] == {"Authorization": "Bearer ${CLAUDE_PLUGIN_OPTION_TOKEN}"}
    assert spec.env["CLAUDE_PLUGIN_OPTION_TOKEN"] == "s3cret"  # never written to the file
    assert "s3cret" not in config_file(home, package_id).read_text()


def test_a_remote_url_fills_non_sensitive_options_in_its_path_and_query(tmp_path: Path) -> None:
    """Claude Code fills ``${user_config.KEY}`` in MCP server configs; the gateway in a
    url's path and query, from a declared non-sensitive option. In its host (the network
    grant, asked for at install), from a sensitive one (a url is shown) or an undeclared
    one, the server is listed, not connected."""
    home = tmp_path / "gateway"
    base = {"type": "http", "headers": {"Authorization": "Bearer ${user_config.token}"}}
    servers = {
        "api": {**base, "url": "https://api.example.com/${user_config.endpoint}/mcp?r=${user_config.retries}"},
        "host": {**base, "url": "https://${user_config.endpoint}.example.com/mcp"},
        "secret": {**base, "url": "https://api.example.com/mcp?key=${user_config.token}"},
        "undeclared": {**base, "url": "https://api.example.com/${user_config.org}"},
    }  # fmt: skip
    package_id = _install(home, _plugin(tmp_path / "p", mcpServers=servers))
    with StateStore.open(home) as store:
        entry = inspect_package(Path(store.get_package(package_id).record.path))
    refused = [d.message for d in entry.diagnostics if d.code == "remote_mcp.url_user_config"]
    assert len(refused) == 3
    assert any("'host'" in m and "host or port" in m for m in refused)
    assert any("'secret'" in m and "sensitive option token" in m for m in refused)
    assert any("'undeclared'" in m and "org, not declared" in m for m in refused)
    assert list(entry.metadata["remote_servers"]) == ["api"]
    assert [p.name for p in entry.permissions] == ["network:api.example.com:443"]
    write_package_config(home, package_id, {"endpoint": "v2"})
    set_secret(home, package_id, "token", "s3cret")
    spec = ClaudePluginsAdapter().plan_launch(entry, home)
    assert isinstance(spec, LaunchSpec)
    planned = json.loads(config_file(home, package_id).read_text())["remote"]["api"]
    assert planned["url"] == "https://api.example.com/v2/mcp?r=3"


def test_gateway_auth_signs_in_to_the_url_as_filled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sign-in is for the url the plugin host connects to: its options filled."""
    import anyio

    from adapters.plugin_host import signing

    home = tmp_path / "gateway"
    server = {"type": "http", "url": "https://api.example.com/${user_config.endpoint}/mcp"}
    package_id = _install(home, _plugin(tmp_path / "p", mcpServers={"api": server}))
    with StateStore.open(home) as store:
        entry = inspect_package(Path(store.get_package(package_id).record.path))
    write_package_config(home, package_id, {"endpoint": "v3"})
    seen: list[str] = []

    async def sign_in(entry: Any, home: Path, server: str, prompt: Any) -> Any:
        seen.append(entry.metadata["remote_servers"][server]["url"])
        return "signed"

    monkeypatch.setattr(signing, "sign_in", sign_in)
    adapter = ClaudePluginsAdapter()
    assert anyio.run(adapter.sign_in, entry, home, "api", None) == "signed"
    assert seen == ["https://api.example.com/v3/mcp"]
