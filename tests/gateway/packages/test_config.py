"""A package's configuration, the same for every ecosystem: GATEWAY_HOME/config/<id>.json,
dotted keys, JSON-or-text values, the reserved `$gateway` settings, and `gateway config`
(checked against the package's schema, sensitive keys masked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.packages import (
    PackageConfigError,
    config_path,
    package_settings,
    parse_config_value,
    read_package_config,
    set_config_value,
    unset_config_value,
    write_package_config,
)

from ._helpers import cli, install_from


def test_an_npm_scope_is_a_folder_and_odd_ids_are_refused(tmp_path: Path) -> None:
    assert config_path(tmp_path, "@acme/x") == tmp_path / "config" / "@acme" / "x.json"
    assert config_path(tmp_path, "openclaw:plugin").name == "openclaw:plugin.json"
    for bad in ("../x", "a/b", "/abs", ".hidden", "@scope/../x"):
        with pytest.raises(PackageConfigError):
            config_path(tmp_path, bad)


def test_dotted_keys_build_and_prune_nested_objects() -> None:
    data = set_config_value({}, "oss.llm.provider", "ollama")
    data = set_config_value(data, "mode", "open-source")
    assert data == {"oss": {"llm": {"provider": "ollama"}}, "mode": "open-source"}
    assert unset_config_value(data, "oss.llm.provider") == {"mode": "open-source"}
    with pytest.raises(PackageConfigError, match="mode holds a str"):
        set_config_value(data, "mode.x", 1)
    with pytest.raises(PackageConfigError):
        set_config_value(data, "a..b", 1)


def test_values_are_json_when_they_parse_and_text_for_string_fields() -> None:
    assert parse_config_value("5") == 5 and parse_config_value('["a"]') == ["a"]
    assert parse_config_value("hello world") == "hello world"
    assert parse_config_value("5", expected="string") == "5"


def test_the_reserved_gateway_settings_never_reach_the_package() -> None:
    own, settings = package_settings({"a": 1, "$gateway": {"tools": {"allow": ["t"]}}})
    assert own == {"a": 1} and settings == {"tools": {"allow": ["t"]}}


def test_a_stored_config_is_owner_only_and_a_corrupt_one_is_an_error(tmp_path: Path) -> None:
    path = write_package_config(tmp_path, "p", {"k": "v"})
    assert path.stat().st_mode & 0o777 == 0o600 and read_package_config(tmp_path, "p") == {"k": "v"}
    path.write_text("{not json")
    with pytest.raises(PackageConfigError, match="not JSON"):
        read_package_config(tmp_path, "p")
    assert read_package_config(tmp_path, "absent") == {}


def openclaw_plugin(root: Path) -> Path:
    folder = root / "claw"
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps(
        {"name": "claw", "version": "1.0.0", "openclaw": {"extensions": ["./index.js"]}}
    ))  # fmt: skip
    schema = {"type": "object", "additionalProperties": False,
              "properties": {"apiKey": {"type": "string"}, "topK": {"type": "number"}}}  # fmt: skip
    manifest = {"id": "claw", "configSchema": schema, "uiHints": {"apiKey": {"sensitive": True}}}
    (folder / "openclaw.plugin.json").write_text(json.dumps(manifest))
    (folder / "index.js").write_text("export default () => {};\n")
    return folder


def test_the_cli_sets_checks_masks_and_unsets(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, openclaw_plugin(tmp_path / "src"))
    assert cli(home, "config", "claw", "apiKey", "12345").returncode == 0
    assert cli(home, "config", "claw", "topK", "5").returncode == 0
    stored = json.loads((home / "config" / "claw.json").read_text())
    assert stored == {"apiKey": "12345", "topK": 5}  # a string field keeps the text
    shown = cli(home, "config", "claw")
    assert "apiKey = ***" in shown.stdout and "topK = 5" in shown.stdout
    refused = cli(home, "config", "claw", "colour", "red")
    assert refused.returncode == 1 and "not stored" in refused.stderr and "colour" in refused.stderr
    assert cli(home, "config", "claw", "topK", "--unset").returncode == 0
    assert json.loads((home / "config" / "claw.json").read_text()) == {"apiKey": "12345"}
    unknown = cli(home, "config", "nobody", "k", "v")
    assert unknown.returncode == 1 and "no installed package 'nobody'" in unknown.stderr


def test_the_cli_checks_resource_limits_before_storing_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, openclaw_plugin(tmp_path / "src"))
    assert cli(home, "config", "claw", "$gateway.limits.memory", "512M").returncode == 0
    assert cli(home, "config", "claw", "$gateway.limits.pids", "64").returncode == 0
    stored = json.loads((home / "config" / "claw.json").read_text())
    assert stored == {"$gateway": {"limits": {"memory": "512M", "pids": 64}}}
    for key, value in (("memory", "lots"), ("pids", "0"), ("cpus", "2")):
        refused = cli(home, "config", "claw", f"$gateway.limits.{key}", value)
        assert refused.returncode == 1 and "not stored" in refused.stderr, refused.stderr
    assert json.loads((home / "config" / "claw.json").read_text()) == stored
