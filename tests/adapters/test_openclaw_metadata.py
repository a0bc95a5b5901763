"""OpenClaw metadata beyond entries: JSON5 manifests, the tool contract, install and channel
blocks, the plugin-API range checked against the emulated host, the optional
conversation-access permission, and npm-style ranges."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from adapters import inspect_package
from adapters.openclaw._semver import HOST_VERSION, satisfies
from tests.adapters._helpers import errors, messages, names, write_tree

SIDECARS = Path(__file__).resolve().parents[2] / "sidecars"
EMPTY = {"type": "object", "additionalProperties": False, "properties": {}}


def plugin(tmp_path: Path, manifest: object, package: dict | None = None) -> Path:
    tree: dict[str, object] = {"openclaw.plugin.json": manifest, "index.js": ""}
    if package is not None:
        tree["package.json"] = package
    return write_tree(tmp_path, tree)


def test_the_manifest_is_read_as_json5(tmp_path: Path) -> None:
    text = "{id: 'p', configSchema: {type: 'object'}, contracts: {tools: ['a',],}, limit: 0x10}"
    entry = inspect_package(plugin(tmp_path, text))
    assert entry.metadata["plugin_id"] == "p" and errors(entry) == []
    assert entry.metadata["contracts_tools"] == ["a"]


def test_a_json5_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    entry = inspect_package(plugin(tmp_path, "{\n  id: 'p',\n  configSchema: ,\n}"))
    (message,) = messages(entry, "package.json_invalid")
    assert message.startswith("openclaw.plugin.json: invalid JSON at line 3 column 17")


def test_a_hard_linked_manifest_is_refused(tmp_path: Path) -> None:
    root = plugin(tmp_path / "p", {"id": "p", "configSchema": EMPTY})
    os.link(root / "openclaw.plugin.json", tmp_path / "elsewhere.json")
    entry = inspect_package(root)
    assert messages(entry, "openclaw.manifest_invalid") == ["openclaw.plugin.json: is a hard link"]


def test_tool_contracts_and_aliases_are_advisory_runtime_facts(tmp_path: Path) -> None:
    manifest = {
        "id": "p",
        "configSchema": EMPTY,
        "contracts": {"tools": ["t1", "t2"]},
        "toolMetadata": {"t2": {"optional": True}},
        "commandAliases": [{"name": "p-cli", "cliCommand": "p"}],
        "uiHints": {"apiKey": {"sensitive": True}, "user": {"label": "User"}},
    }
    entry = inspect_package(plugin(tmp_path, manifest))
    assert entry.metadata["contracts_tools"] == ["t1", "t2"]
    assert entry.metadata["optional_tools"] == ["t2"]
    assert entry.metadata["sensitive_config"] == ["apiKey"]
    declared = [c for c in entry.contributions if c.kind in ("tool", "command")]
    assert declared and all(c.detail["advisory"] for c in declared)


def test_no_contract_is_none_not_an_empty_contract(tmp_path: Path) -> None:
    entry = inspect_package(plugin(tmp_path, {"id": "p", "configSchema": EMPTY}))
    assert entry.metadata["contracts_tools"] is None


def test_install_and_channel_blocks_are_kept_and_bad_values_dropped(tmp_path: Path) -> None:
    package = {
        "name": "@openclaw/nostr",
        "openclaw": {
            "extensions": ["./index.js"],
            "install": {"npmSpec": "@openclaw/nostr", "defaultChoice": 3,
                        "minHostVersion": ">=2026.4.10"},
            "channel": {"id": "nostr", "label": "Nostr",
                        "configuredState": {"env": {"anyOf": ["NOSTR_PRIVATE_KEY"]}}},
        },
    }  # fmt: skip
    entry = inspect_package(plugin(tmp_path, {"id": "nostr", "configSchema": EMPTY}, package))
    assert entry.metadata["install"] == {
        "npmSpec": "@openclaw/nostr",
        "minHostVersion": ">=2026.4.10",
    }
    assert entry.metadata["channel"]["configuredState"]["env"]["anyOf"] == ["NOSTR_PRIVATE_KEY"]
    assert names(entry, "channel") == ["nostr"]
    assert messages(entry, "openclaw.manifest_value_dropped") == [
        "package.json openclaw.install: defaultChoice must be a non-empty string (got a number)"
    ]


@pytest.mark.parametrize(
    ("spec", "warned"),
    [(">=2026.4.24", False), (">=2099.1.1", True), ("a-tag", True)],
)
def test_the_plugin_api_range_is_checked_against_the_emulated_host(
    tmp_path: Path, spec: str, warned: bool
) -> None:
    package = {
        "name": "p",
        "openclaw": {"extensions": ["./index.js"], "compat": {"pluginApi": spec}},
    }
    entry = inspect_package(plugin(tmp_path, {"id": "p", "configSchema": EMPTY}, package))
    assert entry.metadata["plugin_api"] == spec
    found = messages(entry, "openclaw.host_version_unsatisfied")
    assert bool(found) is warned
    if warned:
        assert HOST_VERSION in found[0] and "compat.pluginApi" in found[0]


def test_every_runnable_plugin_asks_for_optional_conversation_access(tmp_path: Path) -> None:
    entry = inspect_package(plugin(tmp_path, {"id": "p", "configSchema": EMPTY}))
    (permission,) = entry.permissions
    assert permission.name == "conversation_access" and permission.optional
    assert permission.to_dict()["optional"] is True


def test_the_emulated_host_version_is_the_pinned_openclaw() -> None:
    # A devDependency: `gateway setup` installs it only when an OpenClaw package needs it.
    pinned = json.loads((SIDECARS / "package.json").read_text())["devDependencies"]["openclaw"]
    assert pinned == HOST_VERSION


@pytest.mark.parametrize(
    ("version", "spec", "expected"),
    [
        ("2026.9.6", ">=2026.4.24", True),
        ("2026.9.6", ">=2026.9.7", False),
        ("2026.9.6", "^2026.5.0", True),
        ("2026.9.6", "~2026.8.0", False),
        ("2026.9.6", ">=2026.1 <2026.9", False),
        ("2026.9.6", "2026.9.x", True),
        ("2026.9.6", "<1 || >=2026", True),
        ("0.2.5", "^0.2.3", True),
        ("0.3.0", "^0.2.3", False),
        ("2026.9.6", "latest", None),
    ],
)
def test_npm_style_ranges(version: str, spec: str, expected: bool | None) -> None:
    assert satisfies(version, spec) is expected
