"""A server entry of mcp.json the schema refuses is skipped — and said at every `list` and
`status`, not only at install: the plugin is otherwise active with fewer tools than its
author meant, and nothing else would say why (``lasting``)."""

from __future__ import annotations

from pathlib import Path

from tests._cli_runner import cli, cli_json

from ._helpers import write_plugin


def test_a_server_without_a_type_is_named_at_install_and_at_every_list(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    plugin = write_plugin(tmp_path / "src" / "memo", servers={"memo": {"command": "memo-server"}})
    done = cli(home, "install", str(plugin))
    installed = done.stdout + done.stderr
    said = "server 'memo': no \"type\": the specification asks for one of stdio"
    assert said in installed
    cli_json(home, "trust", "memo")
    cli_json(home, "enable", "memo")
    for _ in range(2):
        listed = cli_json(home, "list", "--workspace", str(project))
        codes = [(d["package"], d["code"]) for d in listed["diagnostics"]]
        assert codes.count(("memo", "agent_plugins.server_invalid")) == 1
    [package] = cli_json(home, "status")["packages"]
    assert [d["code"] for d in package["diagnostics"]] == ["agent_plugins.server_invalid"]
    shown = cli(home, "status")
    assert said in shown.stdout + shown.stderr
