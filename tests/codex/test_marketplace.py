"""``gateway install MARKETPLACE#PLUGIN`` for a Codex marketplace
(``.agents/plugins/marketplace.json``, read as Codex's ``marketplace.rs`` reads it): a plugin
installed from its folder, and every way the marketplace can refuse, as coded diagnostics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.codex._marketplace import select_plugin
from gateway.model import OfferedSource
from gateway.packages import InstallError, install, load_adapters
from tests.gateway.packages._helpers import recorded

SKILL = "---\nname: brief\ndescription: Writes briefly.\n---\nBe brief.\n"


def _market(root: Path, plugins: list[Any], **top: Any) -> Path:
    (root / ".agents" / "plugins").mkdir(parents=True)
    document = {"name": "team", "interface": {"displayName": "Team"}, "plugins": plugins, **top}
    (root / ".agents" / "plugins" / "marketplace.json").write_text(json.dumps(document))
    return root


def _plugin(root: Path, name: str) -> None:
    (root / ".codex-plugin").mkdir(parents=True)
    (root / ".codex-plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    (root / "skills" / "brief").mkdir(parents=True)
    (root / "skills" / "brief" / "SKILL.md").write_text(SKILL)


def _entry(name: str, source: Any, **extra: Any) -> dict[str, Any]:
    return {"name": name, "source": source, "policy": {"installation": "AVAILABLE",
            "authentication": "ON_INSTALL"}, "category": "Productivity", **extra}  # fmt: skip


def _install(home: Path, source: str) -> Any:
    return install(home, source, kind=None, inspector=load_adapters().inspect)


@pytest.fixture
def market(tmp_path: Path) -> Path:
    root = tmp_path / "market"
    _plugin(root / "plugins" / "writer", "writer")
    _plugin(root / "plugins" / "hidden", "hidden")
    return _market(root, [
        _entry("writer", {"source": "local", "path": "./plugins/writer"}),
        _entry("hidden", "./plugins/hidden", policy={"installation": "NOT_AVAILABLE"}),
        _entry("escapes", {"source": "local", "path": "./plugins/../../outside"}),
        _entry("subdir", {"source": "git-subdir", "url": "owner/repo", "path": "plugins/x"}),
        {"name": "broken"},  # no source: Codex skips the entry
    ])  # fmt: skip


def test_a_codex_marketplace_plugin_installs_from_its_folder(market: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    report = _install(home, f"{market}#writer")
    (package,) = recorded(home)
    assert (package.record.id, package.record.ecosystem) == ("writer", "codex")
    assert not (package.record.path / "plugins").exists()  # the plugin, not the marketplace
    assert report.package.record.id == "writer"


def test_without_a_plugin_name_the_marketplace_says_what_it_offers(
    market: Path, tmp_path: Path
) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", str(market))
    assert raised.value.diagnostics[0].code == "codex.marketplace"
    assert recorded(tmp_path / "home") == []
    chosen = select_plugin(market, None)
    assert isinstance(chosen, list) and chosen[0].code == "codex.marketplace"
    assert "writer, hidden, escapes, subdir" in chosen[0].message  # not the skipped entry


@pytest.mark.parametrize(
    ("plugin", "code"),
    [
        ("nope", "codex.marketplace_plugin_unknown"),
        ("broken", "codex.marketplace_plugin_unknown"),
        ("hidden", "codex.marketplace_plugin_unavailable"),
        ("escapes", "codex.marketplace_invalid"),
        ("subdir", "codex.marketplace_source_unsupported"),
    ],
)
def test_what_codex_refuses_is_refused_with_a_code(
    market: Path, tmp_path: Path, plugin: str, code: str
) -> None:
    with pytest.raises(InstallError) as raised:
        _install(tmp_path / "home", f"{market}#{plugin}")
    assert raised.value.diagnostics[0].code == code
    assert recorded(tmp_path / "home") == []


def test_a_symlinked_plugin_folder_out_of_the_marketplace_is_refused(tmp_path: Path) -> None:
    _plugin(tmp_path / "outside", "outside")
    market = _market(tmp_path / "m", [_entry("linked", "./linked")])
    (market / "linked").symlink_to(tmp_path / "outside")
    chosen = select_plugin(market, "linked")
    assert isinstance(chosen, list) and chosen[0].code == "codex.marketplace_invalid"


@pytest.mark.parametrize(
    ("source", "location"),
    [
        ({"source": "url", "url": "https://github.com/o/r.git", "sha": "abc123"},
         "https://github.com/o/r.git#abc123"),
        ({"source": "url", "url": "o/r", "ref": "v1"}, "https://github.com/o/r.git#v1"),
        ({"source": "url", "url": "git@example.com:o/r.git"}, "git@example.com:o/r.git"),
    ],
)  # fmt: skip
def test_a_git_source_is_fetched_by_git_at_its_pin(
    tmp_path: Path, source: dict[str, Any], location: str
) -> None:
    market = _market(tmp_path, [_entry("remote", source)])
    assert select_plugin(market, "remote") == OfferedSource("git", location)


@pytest.mark.parametrize(
    "source",
    [
        {"source": "url", "url": "file:///etc"},
        {"source": "url", "url": "../elsewhere"},
        {"source": "url", "url": "https://example.com/r.git", "ref": "--upload-pack=x"},
        {"source": "local", "path": "plugins/x"},  # no ./
        {"source": "local", "path": "/abs"},
    ],
)
def test_a_source_naming_a_local_path_or_an_option_is_refused(
    tmp_path: Path, source: dict[str, Any]
) -> None:
    market = _market(tmp_path, [_entry("bad", source)])
    chosen = select_plugin(market, "bad")
    assert isinstance(chosen, list) and chosen[0].code == "codex.marketplace_invalid"


def test_a_marketplace_without_a_name_is_malformed(tmp_path: Path) -> None:
    (tmp_path / ".agents" / "plugins").mkdir(parents=True)
    (tmp_path / ".agents" / "plugins" / "marketplace.json").write_text('{"plugins": []}')
    chosen = select_plugin(tmp_path, "x")
    assert isinstance(chosen, list) and chosen[0].code == "codex.marketplace_invalid"
