"""``gateway install MARKETPLACE#PLUGIN``: a Claude Code marketplace's plugin installed
from its folder, and every way the marketplace can refuse, as coded diagnostics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.claude_plugins._marketplace import select_plugin
from adapters.claude_plugins._marketplace_sources import remote_source
from gateway.model import OfferedSource
from gateway.packages import InstallError, install, load_adapters
from tests._cli_runner import cli, cli_json
from tests.gateway.packages._helpers import recorded
from tests.gateway.packages._registry import Registry, serving

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
    assert "release-notes, from-github, from-subdir, escapes" in first.message
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


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ({"source": "command", "command": "echo /tmp/x", "mode": "copy"}, "'command'"),
        ({"source": "npm", "package": "p", "registry": "https://npm.example"}, "registry"),
    ],
)
def test_a_source_kind_not_installed_is_reported_unsupported(
    tmp_path: Path, source: dict, named: str
) -> None:
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    plugins = [{"name": "p", "source": source}]
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"plugins": plugins}))
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", f"{market}#p")
    assert raised.value.diagnostics[0].code == "claude.marketplace_source_unsupported"
    assert named in raised.value.diagnostics[0].message
    assert recorded(tmp_path / "home") == []


def test_a_github_source_is_fetched_by_git_at_its_pin() -> None:
    source = {"source": "github", "repo": "example/from-github", "sha": "a1b2c3d"}
    assert remote_source("p", source) == OfferedSource(
        "git", "https://github.com/example/from-github.git#a1b2c3d"
    )


@pytest.mark.parametrize(
    "source",
    [
        {"source": "url", "url": "/home/user/private-repo"},
        {"source": "url", "url": "file:///etc"},
        {"source": "url", "url": "ext::sh -c touch% /tmp/pwned"},
        {"source": "github", "repo": "../../x"},
        {"source": "npm", "package": "./local-folder"},
        {"source": "npm", "package": "/tmp/evil.tgz"},
        {"source": "npm", "package": "ok", "version": "1.0.0 ../x"},
        {"source": "github", "repo": "a/b", "ref": "--upload-pack=evil"},
    ],
)
def test_a_remote_source_naming_a_local_path_or_option_is_refused(source: dict) -> None:
    refused = remote_source("p", source)
    assert isinstance(refused, list) and refused[0].code == "claude.marketplace_invalid"


def test_an_npm_source_is_fetched_from_the_registry(tmp_path: Path) -> None:
    files = {
        "package.json": {"name": "notes-plugin", "version": "2.0.0"},
        ".claude-plugin/plugin.json": {"name": "npm-notes", "version": "2.0.0"},
        "commands/draft.md": "Draft it.\n",
    }
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    entry = {
        "name": "npm-notes",
        "source": {"source": "npm", "package": "notes-plugin", "version": "^2.0.0"},
    }
    (market / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"plugins": [entry]}))
    home = tmp_path / "home"
    with serving(Registry()) as registry:
        registry.publish("notes-plugin", "2.0.0", files)
        registry.write_npmrc(home)
        _install(home, f"{market}#npm-notes")
    (package,) = recorded(home)
    assert package.id == "npm-notes" and package.record.version == "2.0.0"
    assert (package.record.path / "commands" / "draft.md").read_text() == "Draft it.\n"
    assert package.record.source_integrity is not None  # npm's integrity, checked


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
