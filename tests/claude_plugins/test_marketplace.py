"""``gateway install MARKETPLACE#PLUGIN``: a Claude Code marketplace's plugin installed
from its folder, and every way the marketplace can refuse, as coded diagnostics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.claude_plugins._marketplace import select_plugin
from gateway.packages import InstallError, install, load_adapters
from tests.gateway.packages._helpers import cli, cli_json, recorded

MARKETPLACE = Path(__file__).resolve().parents[1] / "fixtures" / "claude_marketplace"


def _install(home: Path, source: str) -> None:
    install(home, source, kind=None, inspector=load_adapters().inspect)


def test_a_marketplace_plugin_installs_and_its_command_is_listed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    report = cli_json(home, "install", f"{MARKETPLACE}#release-notes")
    assert report["id"] == "release-notes"
    assert report["source"] == f"{MARKETPLACE}#release-notes"
    assert report["aliases"] == []  # not the marketplace folder's name
    cli_json(home, "trust", "release-notes")
    cli_json(home, "enable", "release-notes")
    listed = cli_json(home, "list")
    names = {item["name"] for item in listed["commands"]}
    assert "notes" in names
    (package,) = recorded(home)
    assert not (package.record.path / "plugins").exists()  # the plugin, not the marketplace


def test_a_marketplace_without_a_plugin_name_says_what_it_offers(tmp_path: Path) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", str(MARKETPLACE))
    (first, *_) = raised.value.diagnostics
    assert first.code == "claude.marketplace_plugin_required"
    assert "release-notes, from-github, escapes" in first.message
    assert recorded(tmp_path / "home") == []


def test_the_cli_hint_names_the_plugins(tmp_path: Path) -> None:
    done = cli(tmp_path / "home", "install", str(MARKETPLACE))
    assert done.returncode != 0
    assert "release-notes" in done.stderr and "MARKETPLACE#PLUGIN" in done.stderr


def test_a_plugin_the_marketplace_does_not_offer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", f"{MARKETPLACE}#nope")
    assert raised.value.diagnostics[0].code == "claude.marketplace_plugin_unknown"
    assert recorded(tmp_path / "home") == []


def test_a_source_leaving_the_marketplace_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", f"{MARKETPLACE}#escapes")
    assert raised.value.diagnostics[0].code == "claude.marketplace_invalid"
    assert "leaves the marketplace" in raised.value.diagnostics[0].message


def test_a_remote_plugin_source_is_reported_unsupported(tmp_path: Path) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", f"{MARKETPLACE}#from-github")
    assert raised.value.diagnostics[0].code == "claude.marketplace_source_unsupported"
    assert "example/from-github" in raised.value.diagnostics[0].message


def test_a_plugin_name_on_a_folder_that_is_no_marketplace_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / ".claude-plugin").mkdir(parents=True)
    (plain / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "plain"}))
    with pytest.raises(InstallError, match=r"no \.claude-plugin/marketplace\.json"):
        _install(tmp_path / "home", f"{plain}#plain")


def test_a_symlinked_source_out_of_the_marketplace_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / ".claude-plugin").mkdir(parents=True)
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / "linked").symlink_to(outside)
    plugins = [{"name": "linked", "source": "./linked"}]
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"plugins": plugins}))
    chosen = select_plugin(market, "linked")
    assert isinstance(chosen, list) and chosen[0].code == "claude.marketplace_invalid"


@pytest.mark.parametrize(
    "marketplace",
    [
        {"plugins": "x"},
        {"plugins": [{"name": "Bad Name", "source": "./x"}]},
        {"plugins": [{"name": "a"}]},
    ],
)
def test_a_malformed_marketplace_is_a_coded_diagnostic(tmp_path: Path, marketplace: object) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "marketplace.json").write_text(json.dumps(marketplace))
    chosen = select_plugin(tmp_path, "a")
    assert isinstance(chosen, list) and chosen[0].code == "claude.marketplace_invalid"
