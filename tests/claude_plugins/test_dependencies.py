"""A plugin's ``dependencies``: read strictly, installed from the same marketplace with
``gateway install MARKETPLACE#PLUGIN`` (each its own untrusted package), version ranges
checked against what the marketplace offers, and what cannot be resolved named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from adapters.claude_plugins._inspect import inspect_plugin
from gateway.packages import install, install_requirements, load_adapters
from tests._cli_runner import cli, cli_json
from tests.claude_plugins._markets import marketplace_files, plugin, repository, write
from tests.gateway.packages._helpers import recorded


def _market(root: Path, plugins: dict[str, dict[str, Any]]) -> Path:
    """A marketplace folder offering ``plugins`` (name: plugin.json beyond name/version)."""
    entries = []
    for name, extra in plugins.items():
        files = plugin(name, extra.pop("version", "1.0.0"))
        manifest = {**json.loads(json.dumps(files[".claude-plugin/plugin.json"])), **extra}
        files[".claude-plugin/plugin.json"] = manifest
        write(root / "plugins" / name, files)
        entries.append({"name": name, "source": f"./plugins/{name}"})
    write(root, marketplace_files(entries))
    return root


def _ids(home: Path) -> dict[str, str]:
    return {p.id: p.record.version for p in recorded(home)}


def _codes(report: dict[str, Any]) -> list[str]:
    return [d["code"] for d in report["diagnostics"]]


def test_a_dependency_is_installed_with_its_dependent(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": ["audit-logger"]},
        "audit-logger": {},
    })  # fmt: skip
    home = tmp_path / "home"
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert [d["id"] for d in report["dependencies"]["added"]] == ["audit-logger"]
    assert _ids(home) == {"deploy-kit": "1.0.0", "audit-logger": "1.0.0"}
    assert not any(p.trusted for p in recorded(home))  # each passes its own gates
    (dependency,) = [p for p in recorded(home) if p.id == "audit-logger"]
    assert dependency.record.source == f"{market}#audit-logger"


def test_the_install_output_lists_the_added_dependencies(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": ["audit-logger"]},
        "audit-logger": {},
    })  # fmt: skip
    done = cli(tmp_path / "home", "install", f"{market}#deploy-kit")
    assert done.returncode == 0, done.stderr
    assert "added dependency audit-logger 1.0.0" in done.stdout
    assert "gateway trust audit-logger" in done.stdout


def test_dependencies_of_a_dependency_are_installed_too(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "bundle": {"dependencies": ["deploy-kit"]},
        "deploy-kit": {"dependencies": ["audit-logger"]},
        "audit-logger": {},
    })  # fmt: skip
    report = cli_json(tmp_path / "home", "install", f"{market}#bundle")
    assert [d["id"] for d in report["dependencies"]["added"]] == ["deploy-kit", "audit-logger"]


def test_a_version_range_the_offered_version_satisfies_installs_it(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": [{"name": "secrets-vault", "version": "~2.1.0"}]},
        "secrets-vault": {"version": "2.1.4"},
    })  # fmt: skip
    home = tmp_path / "home"
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert _ids(home)["secrets-vault"] == "2.1.4"
    assert "package.requirement_unresolved" not in _codes(report)


def test_a_range_no_offered_version_satisfies_leaves_it_unresolved(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": [{"name": "secrets-vault", "version": "~2.1.0"}]},
        "secrets-vault": {"version": "2.2.0"},
    })  # fmt: skip
    home = tmp_path / "home"
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert _ids(home) == {"deploy-kit": "1.0.0"}  # the dependent is installed, as Claude does
    (problem,) = [d for d in report["diagnostics"] if d["code"] == "package.requirement_unresolved"]
    assert "secrets-vault ~2.1.0" in problem["message"]
    assert "2.2.0" in problem["message"]
    assert report["dependencies"]["added"] == []


def test_a_dependency_the_marketplace_does_not_offer_is_named(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {"deploy-kit": {"dependencies": ["audit-logger"]}})
    home = tmp_path / "home"
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert _ids(home) == {"deploy-kit": "1.0.0"}
    (problem,) = [d for d in report["diagnostics"] if d["code"] == "package.requirement_unresolved"]
    assert "audit-logger" in problem["message"] and "offers no plugin" in problem["message"]
    assert problem["hint"] == f"gateway install {market}#audit-logger"


def test_a_dependency_from_another_marketplace_is_named_not_fetched(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": ["audit-logger@elsewhere"]},
        "audit-logger": {},
    })  # fmt: skip
    home = tmp_path / "home"
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert _ids(home) == {"deploy-kit": "1.0.0"}  # not the same-named plugin of this one
    (problem,) = [d for d in report["diagnostics"] if d["code"] == "package.requirement_unresolved"]
    assert "'elsewhere'" in problem["message"]


def test_an_installed_dependency_in_range_is_kept(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": [{"name": "audit-logger", "version": "^1.0.0"}]},
        "audit-logger": {},
    })  # fmt: skip
    home = tmp_path / "home"
    cli_json(home, "install", f"{market}#audit-logger")
    cli_json(home, "trust", "audit-logger")
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert report["dependencies"] == {"added": [], "kept": ["audit-logger"]}
    (kept,) = [p for p in recorded(home) if p.id == "audit-logger"]
    assert kept.trusted  # not reinstalled: its trust stands


def test_an_installed_dependency_out_of_range_is_kept_and_named(tmp_path: Path) -> None:
    market = _market(tmp_path / "market", {
        "deploy-kit": {"dependencies": [{"name": "audit-logger", "version": ">=2"}]},
        "audit-logger": {},
    })  # fmt: skip
    home = tmp_path / "home"
    cli_json(home, "install", f"{market}#audit-logger")
    report = cli_json(home, "install", f"{market}#deploy-kit")
    assert "package.requirement_version_unsatisfied" in _codes(report)
    assert _ids(home)["audit-logger"] == "1.0.0"


def test_bad_dependency_entries_are_coded_diagnostics(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    write(root, {
        ".claude-plugin/plugin.json": {"name": "deploy-kit", "dependencies": [
            5, "Not Kebab", {"version": "1.0.0"}, {"name": "vault", "version": "soon"},
            "deploy-kit", "audit-logger", "audit-logger", {"name": "ok", "version": "^2"},
        ]},
    })  # fmt: skip
    entry = inspect_plugin(root)
    invalid = [d.message for d in entry.diagnostics if d.code == "claude.dependency_invalid"]
    assert len(invalid) == 6
    assert any("[0] is a number" in m for m in invalid)
    assert any("'Not Kebab'" in m for m in invalid)
    assert any("'soon' is not a semver range" in m for m in invalid)
    assert any("names itself" in m for m in invalid)
    assert any("listed twice" in m for m in invalid)
    assert [d.name for d in entry.dependencies] == ["audit-logger", "ok"]


def test_dependencies_that_are_not_a_list_are_a_coded_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "plugin"
    write(root, {".claude-plugin/plugin.json": {"name": "kit", "dependencies": "vault"}})
    entry = inspect_plugin(root)
    assert [d.code for d in entry.diagnostics] == ["claude.dependency_invalid"]
    assert entry.dependencies == []


def test_a_plugin_from_a_folder_naming_a_dependency_is_held_at_status(tmp_path: Path) -> None:
    root = tmp_path / "deploy-kit"
    write(root, {**plugin("deploy-kit")})
    manifest = {"name": "deploy-kit", "version": "1.0.0", "dependencies": ["audit-logger"]}
    write(root, {".claude-plugin/plugin.json": manifest})
    home = tmp_path / "home"
    report = cli_json(home, "install", str(root))
    assert report["dependencies"] == {"added": [], "kept": []}  # no marketplace to ask
    cli_json(home, "trust", "deploy-kit")
    status = cli_json(home, "status")
    text = json.dumps(status)
    assert "package audit-logger is not installed" in text


def test_a_git_marketplace_s_dependency_comes_from_the_same_repository(
    tmp_path: Path, hosts: Path
) -> None:
    kit = plugin("deploy-kit")
    kit[".claude-plugin/plugin.json"] = {
        "name": "deploy-kit", "version": "1.0.0",
        "dependencies": [{"name": "secrets-vault", "version": "^2.1"}],
    }  # fmt: skip
    repository(hosts / "github" / "acme" / "market.git", {
        **marketplace_files([
            {"name": "deploy-kit", "source": "./plugins/deploy-kit"},
            {"name": "secrets-vault", "source": "./plugins/secrets-vault"},
        ]),
        **{f"plugins/deploy-kit/{k}": v for k, v in kit.items()},
        **{f"plugins/secrets-vault/{k}": v for k, v in plugin("secrets-vault", "2.3.0").items()},
    })  # fmt: skip
    home = tmp_path / "home"
    adapters = load_adapters()
    source = "acme/market#deploy-kit"
    report = install(home, source, kind=None, inspector=adapters.inspect)
    needed = install_requirements(home, source, None, report, adapters)
    assert [r.entry.id for r in needed.added] == ["secrets-vault"], needed.diagnostics
    (vault,) = [p for p in recorded(home) if p.id == "secrets-vault"]
    assert vault.record.source.startswith("https://github.com/acme/market.git##secrets-vault (")
    assert vault.record.version == "2.3.0"
