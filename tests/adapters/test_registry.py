"""The registry: detection order, inspect_package's guarantees, the code catalogue."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adapters import ADAPTERS, detect_ecosystem, get_adapter, inspect_package
from gateway.base import catalogue
from gateway.model import Adapter
from tests.adapters._helpers import assert_well_formed, codes, messages, write_tree

NANOBOT = {
    "id": "acme.wrap",
    "name": "Wrap",
    "version": "1.0.0",
    "runtime": "pi",
    "entries": ["index.ts"],
}


def test_adapters_are_in_the_defined_order() -> None:
    assert [a.ecosystem for a in ADAPTERS] == [
        "agent-plugins",
        "nanobot",
        "openclaw",
        "pi",
        "nu",
        "claude",
        "nimlet",
    ]
    assert all(isinstance(a, Adapter) for a in ADAPTERS)


def test_detect_lists_every_matching_adapter_nanobot_first(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "nanobot.extension.json": NANOBOT,
            "openclaw.plugin.json": {"id": "x", "configSchema": {}},
            "package.json": {"name": "x", "pi": {}, "nu": {"namespace": "x"}},
            "extension.json": {"name": "x", "command": ["x"]},
            "index.ts": "",
        },
    )
    found = [a.ecosystem for a in detect_ecosystem(tmp_path)]
    assert found == ["nanobot", "openclaw", "pi", "nu", "nimlet"]
    assert inspect_package(tmp_path).ecosystem == "nanobot"


def test_openclaw_is_preferred_over_pi(tmp_path: Path) -> None:
    package = {
        "name": "x",
        "pi": {"extensions": ["index.ts"]},
        "openclaw": {"extensions": ["index.ts"]},
    }
    write_tree(
        tmp_path, {"package.json": package, "openclaw.plugin.json": {"id": "x", "configSchema": {}}}
    )
    assert inspect_package(tmp_path).ecosystem == "openclaw"


def test_pi_is_preferred_over_nu_and_nimlet(tmp_path: Path) -> None:
    package = {"name": "x", "pi": {}, "nu": {"namespace": "x"}}
    write_tree(tmp_path, {"package.json": package, "SKILL.md": "Skill\n"})
    assert inspect_package(tmp_path).ecosystem == "pi"


def test_forced_ecosystem_overrides_detection(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": {"name": "x", "pi": {}, "nu": {"namespace": "x"}}})
    entry = inspect_package(tmp_path, "nu")
    assert entry.ecosystem == "nu" and entry.metadata["namespace"] == "x"


def test_nothing_detected_is_a_diagnostic(tmp_path: Path) -> None:
    write_tree(tmp_path, {"README.md": "hello"})
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, codes(entry)) == ("unknown", ["package.not_detected"])
    assert entry.id == tmp_path.name and not entry.ok
    assert_well_formed(entry)


def test_package_json_without_ecosystem_key_is_not_detected(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": {"name": "left-pad"}})
    assert codes(inspect_package(tmp_path)) == ["package.not_detected"]


@pytest.mark.parametrize("ecosystem", [None, "pi"])
def test_missing_root_is_a_diagnostic(tmp_path: Path, ecosystem: str | None) -> None:
    entry = inspect_package(tmp_path / "nope", ecosystem)
    assert codes(entry) == ["package.root_invalid"]


def test_file_as_root_is_a_diagnostic(tmp_path: Path) -> None:
    write_tree(tmp_path, {"file.txt": "x"})
    assert codes(inspect_package(tmp_path / "file.txt")) == ["package.root_invalid"]


def test_unknown_ecosystem_is_a_diagnostic(tmp_path: Path) -> None:
    entry = inspect_package(tmp_path, "vscode")
    assert messages(entry, "package.unknown_ecosystem") == [
        "unknown ecosystem 'vscode'; known: agent-plugins, nanobot, openclaw, pi, nu, claude, "
        "nimlet"
    ]


def test_string_root_is_accepted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": {"name": "x", "command": ["x"]}})
    assert inspect_package(str(tmp_path)).id == "x"  # type: ignore[arg-type]


def test_crashing_adapter_becomes_a_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(root: Path) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(get_adapter("nimlet"), "inspect", explode)
    write_tree(tmp_path, {"extension.json": {"name": "x", "command": ["x"]}})
    entry = inspect_package(tmp_path)
    assert messages(entry, "package.adapter_failed") == [
        "nimlet adapter failed: RuntimeError('boom')"
    ]


def test_catalog_entry_to_dict_is_json(tmp_path: Path) -> None:
    write_tree(tmp_path, {"nanobot.extension.json": NANOBOT, "index.ts": ""})
    data = json.loads(json.dumps(inspect_package(tmp_path).to_dict()))
    assert data["id"] == "acme.wrap" and data["runtime"] == "node-sidecar"
    assert data["entries"] == ["index.ts"] and data["diagnostics"] == []
    assert set(data) == {
        "id",
        "name",
        "version",
        "ecosystem",
        "root",
        "description",
        "runtime",
        "contributions",
        "permissions",
        "dependencies",
        "secrets",
        "config_keys",
        "entries",
        "metadata",
        "diagnostics",
        "enforce_declared",
        "config_closed",
    }


def test_every_adapter_code_is_named_prefix_dot_name() -> None:
    names = [entry.code for entry in catalogue().values() if entry.module.startswith("adapters.")]
    assert names
    assert [name for name in names if not re.fullmatch(r"[a-z_]+\.[a-z_]+", name)] == []


def test_convention_pi_detection_leaves_nu_packages_alone(tmp_path: Path) -> None:
    package = {"name": "x", "nu": {"namespace": "x", "extensions": ["extensions/a.ts"]}}
    write_tree(tmp_path, {"package.json": package, "extensions/a.ts": ""})
    assert inspect_package(tmp_path).ecosystem == "nu"
    write_tree(tmp_path, {"package.json": {"name": "x"}})
    assert inspect_package(tmp_path).ecosystem == "pi"  # extensions/ alone: a Pi convention
