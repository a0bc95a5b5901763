"""nanobot: the strict nanobot.extension.json manifest and its adapter."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from adapters import inspect_package
from adapters.nanobot import dump_manifest, load_manifest
from tests.adapters._helpers import (
    NANOBOT_DOCUMENT_EXAMPLE,
    assert_well_formed,
    codes,
    errors,
    messages,
    write_tree,
)

# The nanobot extension-authoring document's example manifest, verbatim.
EXAMPLE: dict[str, Any] = NANOBOT_DOCUMENT_EXAMPLE


def example(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(EXAMPLE)
    data.update(changes)
    return data


def diagnostics_of(data: object) -> list[tuple[str, str]]:
    _, found = load_manifest(data)
    return [(d.code, d.message.removeprefix("nanobot.extension.json: ")) for d in found]


def test_nanobot_conformance_document_example(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"nanobot.extension.json": EXAMPLE, "my_extension/__init__.py": "def register(api): ...\n"},
    )
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.name, entry.version, entry.runtime) == (
        "nanobot",
        "acme.review",
        "Acme Review",
        "1.0.0",
        "python-sidecar",
    )
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("tool", "review_code"),
        ("command", "review"),
    ]
    assert [(d.kind, d.name, d.specifier, d.optional) for d in entry.dependencies] == [
        ("python", "acme-review-core", ">=1,<2", False)
    ]
    assert [(p.name, p.reason) for p in entry.permissions] == [
        ("workspace.read", "Read files selected for review.")
    ]
    assert entry.entries == ["my_extension/__init__.py"]
    assert entry.metadata["python_entry"] == "my_extension:register"
    assert entry.diagnostics == []
    assert_well_formed(entry)


def test_nanobot_unknown_top_level_field_is_named() -> None:
    assert diagnostics_of(example(typo=1)) == [
        ("nanobot.manifest_unknown_field", "typo: unknown field")
    ]


def test_nanobot_unknown_field_in_contribution_is_named() -> None:
    data = example()
    data["contributions"].append({"kind": "hook", "name": "h"})
    data["contributions"].append({"kind": "tool", "name": "t", "nmae": "x"})
    assert diagnostics_of(data) == [
        ("nanobot.manifest_unknown_field", "contributions[3].nmae: unknown field")
    ]


def test_nanobot_unknown_field_in_dependency_is_named() -> None:
    data = example()
    data["dependencies"][0]["version"] = "1"
    assert diagnostics_of(data) == [
        ("nanobot.manifest_unknown_field", "dependencies[0].version: unknown field")
    ]


def test_nanobot_unknown_field_in_permission_is_named() -> None:
    data = example()
    data["permissions"][0]["why"] = "x"
    assert diagnostics_of(data) == [
        ("nanobot.manifest_unknown_field", "permissions[0].why: unknown field")
    ]


def test_nanobot_snake_case_api_version_is_an_unknown_field() -> None:
    data = example()
    data["api_version"] = data.pop("apiVersion")
    assert diagnostics_of(data) == [
        ("nanobot.manifest_unknown_field", "api_version: unknown field")
    ]


@pytest.mark.parametrize("field", ["id", "name", "version", "runtime"])
def test_nanobot_required_field_missing_is_named(field: str) -> None:
    data = example()
    del data[field]
    assert diagnostics_of(data) == [
        ("nanobot.manifest_invalid", f"{field}: required field missing")
    ]


@pytest.mark.parametrize("value", [2, True, 1.0, "1"])
def test_nanobot_api_version_must_be_the_integer_1(value: object) -> None:
    (found,) = diagnostics_of(example(apiVersion=value))
    assert found[0] == "nanobot.manifest_invalid" and found[1].startswith("apiVersion: ")


def test_nanobot_api_version_defaults_to_1() -> None:
    data = example()
    del data["apiVersion"]
    manifest, found = load_manifest(data)
    assert manifest is not None and manifest.api_version == 1 and found == []


@pytest.mark.parametrize("runtime", ["python", "pi", "openclaw", "declarative"])
def test_nanobot_runtime_accepts_the_four_kinds(runtime: str) -> None:
    entries = {
        "python": {"entry": "m:register"},
        "pi": {"entries": ["./index.ts"]},
        "openclaw": {"entry": "dist/index.js"},
        "declarative": {},
    }[runtime]
    data = example(runtime=runtime)
    del data["entry"]
    manifest, found = load_manifest({**data, **entries})
    assert manifest is not None, found


def test_nanobot_unknown_runtime_is_rejected() -> None:
    assert diagnostics_of(example(runtime="node")) == [
        (
            "nanobot.manifest_invalid",
            "runtime: must be 'python', 'pi', 'openclaw' or 'declarative'",
        )
    ]


def test_nanobot_id_must_be_lowercase() -> None:
    for bad in ("Acme.Review", "../escape", "two words", ""):
        (found,) = diagnostics_of(example(id=bad))
        assert found[0] == "nanobot.manifest_invalid" and found[1].startswith("id: "), bad


@pytest.mark.parametrize("entry", ["/abs/index.js", "../index.js", "a/../../b.js", "C:\\x.js"])
def test_nanobot_entries_must_be_relative_without_dotdot(entry: str) -> None:
    data = example(runtime="pi", entries=[entry])
    del data["entry"]
    (found,) = diagnostics_of(data)
    assert found[0] == "nanobot.manifest_invalid" and found[1].startswith("entries[0]: ")


def test_nanobot_entries_take_precedence_over_entry(tmp_path: Path) -> None:
    data = example(runtime="pi", entry="old.js", entries=["new.js"])
    write_tree(tmp_path, {"nanobot.extension.json": data, "new.js": ""})
    entry = inspect_package(tmp_path)
    assert entry.entries == ["new.js"] and entry.runtime == "node-sidecar"
    assert codes(entry) == ["nanobot.entry_overridden"]


def test_nanobot_python_runtime_needs_exactly_one_entry() -> None:
    data = example(entries=["a:register", "b:register"])
    del data["entry"]
    assert diagnostics_of(data) == [
        ("nanobot.manifest_invalid", "runtime python needs exactly one entry (module[:attribute])")
    ]


def test_nanobot_python_entry_must_be_module_attribute() -> None:
    assert diagnostics_of(example(entry="my_extension/__init__.py")) == [
        (
            "nanobot.manifest_invalid",
            "python entry 'my_extension/__init__.py' is not module[:attribute]",
        )
    ]


def test_nanobot_pi_runtime_needs_an_entry() -> None:
    data = example(runtime="pi")
    del data["entry"]
    assert diagnostics_of(data) == [
        ("nanobot.manifest_invalid", "runtime pi needs entry or entries")
    ]


def test_nanobot_declarative_runtime_takes_no_entry() -> None:
    assert diagnostics_of(example(runtime="declarative")) == [
        ("nanobot.manifest_invalid", "runtime declarative runs no code; remove entry/entries")
    ]


def test_nanobot_duplicate_entries_are_rejected() -> None:
    data = example(runtime="pi", entries=["a.js", "a.js"])
    del data["entry"]
    assert diagnostics_of(data) == [
        ("nanobot.manifest_duplicate", "entries[1] repeats entry a.js of entries[0]")
    ]


def test_nanobot_all_eleven_contribution_kinds_are_accepted() -> None:
    kinds = [
        "tool",
        "skill",
        "channel",
        "llm_provider",
        "transcription_provider",
        "image_generation_provider",
        "web_search_provider",
        "mcp_server",
        "hook",
        "command",
        "webui",
    ]
    contributions = [
        {"kind": k, "name": "x", "target": "t", "description": "d", "replaces": ["other.ext"]}
        for k in kinds
    ]
    manifest, found = load_manifest(example(contributions=contributions))
    assert manifest is not None and found == []
    assert [c.kind for c in manifest.contributions] == kinds


def test_nanobot_unknown_contribution_kind_is_rejected() -> None:
    (found,) = diagnostics_of(example(contributions=[{"kind": "mystery", "name": "x"}]))
    assert found[0] == "nanobot.manifest_invalid"
    assert found[1].startswith("contributions[0].kind: must be 'tool', ")


def test_nanobot_duplicate_contribution_is_rejected() -> None:
    data = example()
    data["contributions"].append({"kind": "tool", "name": "review_code"})
    assert diagnostics_of(data) == [
        (
            "nanobot.manifest_duplicate",
            "contributions[2] repeats (kind, name) ('tool', 'review_code') of contributions[0]",
        )
    ]


def test_nanobot_same_name_different_kind_is_not_a_duplicate() -> None:
    data = example()
    data["contributions"].append({"kind": "skill", "name": "review_code"})
    assert diagnostics_of(data) == []


def test_nanobot_replaces_holds_extension_ids() -> None:
    data = example()
    data["contributions"][0]["replaces"] = ["Not An Id"]
    (found,) = diagnostics_of(data)
    assert found[1].startswith("contributions[0].replaces[0]: ")


@pytest.mark.parametrize("kind", ["python", "npm", "executable", "environment", "extension"])
def test_nanobot_dependency_kinds_are_accepted(kind: str) -> None:
    name = {"environment": "ACME_TOKEN", "extension": "acme.base"}.get(kind, "acme-core")
    manifest, found = load_manifest(example(dependencies=[{"kind": kind, "name": name}]))
    assert manifest is not None and found == []


def test_nanobot_dependency_optional_must_be_a_boolean() -> None:
    data = example()
    data["dependencies"][0]["optional"] = "false"
    assert diagnostics_of(data) == [
        ("nanobot.manifest_invalid", "dependencies[0].optional: must be true or false")
    ]


def test_nanobot_python_specifier_must_be_pep440() -> None:
    data = example()
    data["dependencies"][0]["specifier"] = "^1.2"
    assert diagnostics_of(data) == [
        ("nanobot.manifest_invalid", "dependencies[0]: '^1.2' is not a PEP 440 version specifier")
    ]


def test_nanobot_npm_specifier_is_left_to_npm() -> None:
    deps = [{"kind": "npm", "name": "jiti", "specifier": "^2.4.2"}]
    assert diagnostics_of(example(dependencies=deps)) == []


def test_nanobot_extension_dependency_name_must_be_an_id() -> None:
    deps = [{"kind": "extension", "name": "Acme Base"}]
    assert diagnostics_of(example(dependencies=deps)) == [
        (
            "nanobot.manifest_invalid",
            "dependencies[0]: 'Acme Base' is not a valid extension dependency name",
        )
    ]


def test_nanobot_duplicate_dependency_is_rejected() -> None:
    data = example()
    data["dependencies"].append({"kind": "python", "name": "acme-review-core"})
    (found,) = diagnostics_of(data)
    assert found[0] == "nanobot.manifest_duplicate"


def test_nanobot_specifier_on_executable_is_a_warning() -> None:
    deps = [{"kind": "executable", "name": "git", "specifier": ">=2"}]
    assert diagnostics_of(example(dependencies=deps)) == [
        (
            "nanobot.dependency_specifier_ignored",
            "dependencies[0] executable 'git': specifier '>=2' is never checked",
        )
    ]


@pytest.mark.parametrize("name", ["Workspace.read", "workspace", "workspace..read", "1net.http"])
def test_nanobot_permission_must_be_namespaced_lowercase(name: str) -> None:
    (found,) = diagnostics_of(example(permissions=[{"name": name, "reason": "r"}]))
    assert found[0] == "nanobot.manifest_invalid" and found[1].startswith("permissions[0].name: ")


def test_nanobot_duplicate_permission_is_rejected() -> None:
    perms = [{"name": "network.http", "reason": "a"}, {"name": "network.http", "reason": "b"}]
    assert diagnostics_of(example(permissions=perms)) == [
        (
            "nanobot.manifest_duplicate",
            "permissions[1] repeats permission network.http of permissions[0]",
        )
    ]


def test_nanobot_permission_without_reason_is_a_warning() -> None:
    assert diagnostics_of(example(permissions=[{"name": "network.http"}])) == [
        ("nanobot.permission_reason_missing", "permissions[0] 'network.http' has no reason")
    ]


def test_nanobot_wrong_types_are_named() -> None:
    assert diagnostics_of(example(contributions={"kind": "tool"}, license=3)) == [
        ("nanobot.manifest_invalid", "contributions: must be an array"),
        ("nanobot.manifest_invalid", "license: must be a string"),
    ]


def test_nanobot_non_object_manifest_is_rejected() -> None:
    assert diagnostics_of([EXAMPLE]) == [("nanobot.manifest_invalid", "must be an object")]


def test_nanobot_round_trip_load_dump_load_is_equal() -> None:
    manifest, _ = load_manifest(EXAMPLE)
    assert manifest is not None
    dumped = dump_manifest(manifest)
    again, found = load_manifest(json.loads(json.dumps(dumped)))
    assert again == manifest and found == []
    assert dumped["apiVersion"] == 1 and list(dumped)[:4] == ["id", "name", "version", "apiVersion"]


def test_nanobot_dump_omits_defaults() -> None:
    manifest, _ = load_manifest(EXAMPLE)
    assert manifest is not None
    assert dump_manifest(manifest)["dependencies"] == [
        {"kind": "python", "name": "acme-review-core", "specifier": ">=1,<2"}
    ]


def test_nanobot_invalid_manifest_keeps_identity_for_diagnostics(tmp_path: Path) -> None:
    write_tree(tmp_path, {"nanobot.extension.json": example(runtime="rust")})
    entry = inspect_package(tmp_path)
    assert entry.id == "acme.review" and entry.contributions == []
    assert all(d.package == "acme.review" for d in entry.diagnostics)
    assert errors(entry)


def test_nanobot_missing_python_module_is_a_warning(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"nanobot.extension.json": EXAMPLE}))
    assert messages(entry, "package.entry_not_found") == [
        "nanobot.extension.json: entry module 'my_extension:register' is not in the package"
    ]


def test_nanobot_environment_dependencies_are_secrets(tmp_path: Path) -> None:
    deps = [{"kind": "environment", "name": "ACME_TOKEN"}]
    data = example(runtime="declarative", dependencies=deps)
    del data["entry"]
    entry = inspect_package(write_tree(tmp_path, {"nanobot.extension.json": data}))
    assert entry.secrets == ["ACME_TOKEN"] and entry.runtime == "declarative"


def test_nanobot_manifest_wins_over_pi_package(tmp_path: Path) -> None:
    data = example(runtime="pi", entries=["./index.ts"])
    del data["entry"]
    write_tree(
        tmp_path,
        {
            "nanobot.extension.json": data,
            "package.json": {"name": "@acme/pi-review", "pi": {"extensions": ["./index.ts"]}},
            "index.ts": "",
        },
    )
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.entries) == ("nanobot", "acme.review", ["index.ts"])
