"""Property tests: no manifest, however malformed, makes an adapter raise.

Every parser gets arbitrary JSON values (and targeted objects whose known keys hold
arbitrary values); tool.yaml and SKILL.md also get arbitrary text and bytes.
``inspect_package`` must return an entry whose diagnostics use declared codes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters import inspect_package
from adapters._glob import match
from adapters.nanobot import (
    CONTRIBUTION_KINDS,
    DEPENDENCY_KINDS,
    RUNTIMES,
    dump_manifest,
    load_manifest,
)
from tests.adapters._helpers import assert_well_formed, write_tree

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=10,
)
# Strings that look like paths and globs, with the characters that break naive code.
path_text = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab./\\*?[]{},!+-~:\x00 é")), max_size=24),
    st.sampled_from(["../x", "/etc/passwd", "a" * 300, ".", "", "**", "!**", "+.", "-./a"]),
)
path_lists = st.lists(path_text, max_size=4) | json_values


def objects_with(keys: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects holding any subset of ``keys`` (with their strategies) plus a noise key."""
    noise = st.dictionaries(st.text(max_size=6), scalars, max_size=1)
    return st.builds(
        lambda fixed, extra: {**extra, **fixed}, st.fixed_dictionaries({}, optional=keys), noise
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # One folder per test, reused across examples: every example writes the same file
    # names, and creating/removing trees per example is what makes these tests slow.
    return tmp_path_factory.mktemp("properties")


def check(folder: Path, tree: dict[str, object], ecosystem: str) -> None:
    root = write_tree(folder, tree)
    detected = inspect_package(root)
    assert_well_formed(detected)
    if detected.ecosystem != ecosystem:
        forced = inspect_package(root, ecosystem)
        assert_well_formed(forced)
        assert forced.ecosystem == ecosystem


def dumps(value: object) -> str:
    return json.dumps(value)  # NaN/Infinity are written, and must be rejected on read


@SETTINGS
@given(
    st.one_of(
        json_values,
        objects_with(
            {
                "name": json_values | st.text(max_size=8),
                "command": st.lists(path_text, max_size=3) | json_values,
                "response_timeout_seconds": json_values,
            }
        ),
    )
)
def test_nimlet_extension_json_never_raises(workdir: Path, manifest: object) -> None:
    check(workdir / "extension", {"extension.json": dumps(manifest), "x.py": ""}, "nimlet")


@SETTINGS
@given(
    st.one_of(
        json_values,
        objects_with(
            {
                "name": json_values,
                "description": json_values,
                "command": st.lists(path_text, max_size=3) | json_values,
                "timeout_seconds": json_values,
                "input_schema": json_values,
                "capabilities": json_values,
            }
        ),
    )
)
def test_nimlet_tool_json_never_raises(workdir: Path, tool: object) -> None:
    check(workdir / "tool_json", {"tools/t/tool.json": dumps(tool)}, "nimlet")


@SETTINGS
@given(st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_skill_md_never_raises(workdir: Path, text: str) -> None:
    check(workdir / "skill", {"SKILL.md": text, "prompts/p.md": text}, "nimlet")


@SETTINGS
@given(
    st.one_of(
        json_values,
        objects_with(
            {
                "id": json_values | st.text(alphabet="abc.-_A ", max_size=8),
                "name": json_values,
                "version": json_values,
                "apiVersion": json_values,
                "runtime": st.sampled_from(RUNTIMES) | json_values,
                "entry": path_text | json_values,
                "entries": path_lists,
                "contributions": st.lists(
                    objects_with(
                        {
                            "kind": st.sampled_from(CONTRIBUTION_KINDS) | json_values,
                            "name": json_values,
                            "replaces": json_values,
                        }
                    ),
                    max_size=3,
                )
                | json_values,
                "dependencies": st.lists(
                    objects_with(
                        {
                            "kind": st.sampled_from(DEPENDENCY_KINDS),
                            "name": json_values,
                            "specifier": json_values,
                            "optional": json_values,
                        }
                    ),
                    max_size=3,
                )
                | json_values,
                "permissions": st.lists(
                    objects_with({"name": json_values, "reason": json_values}), max_size=3
                ),
            }
        ),
    )
)
def test_nanobot_manifest_never_raises(workdir: Path, manifest: object) -> None:
    check(workdir / "nanobot", {"nanobot.extension.json": dumps(manifest)}, "nanobot")
    _, diagnostics = load_manifest(manifest)  # the public loader, without the file
    assert all(d.code.startswith("nanobot.") for d in diagnostics)


identifiers = st.from_regex(r"[a-z0-9](?:[a-z0-9._-]{0,8}[a-z0-9])?", fullmatch=True)
valid_manifests = st.fixed_dictionaries(
    {
        "id": identifiers,
        "name": st.text(min_size=1, max_size=8).filter(str.strip),
        "version": st.text(min_size=1, max_size=8).filter(str.strip),
        "runtime": st.just("pi"),
        "entries": st.lists(
            st.from_regex(r"[a-z]{1,6}\.js", fullmatch=True), min_size=1, max_size=3, unique=True
        ),
    },
    optional={
        "apiVersion": st.just(1),
        "description": st.text(max_size=10),
        "homepage": st.text(max_size=10),
        "contributions": st.lists(
            st.fixed_dictionaries(
                {"kind": st.sampled_from(CONTRIBUTION_KINDS), "name": identifiers},
                optional={
                    "target": st.text(max_size=5),
                    "description": st.text(max_size=5),
                    "replaces": st.lists(identifiers, max_size=2, unique=True),
                },
            ),
            max_size=4,
            unique_by=lambda c: (c["kind"], c["name"]),
        ),
        "dependencies": st.lists(
            st.fixed_dictionaries(
                {"kind": st.sampled_from(["npm", "extension"]), "name": identifiers},
                optional={"optional": st.booleans()},
            ),
            max_size=3,
            unique_by=lambda d: (d["kind"], d["name"]),
        ),
        "permissions": st.lists(
            st.fixed_dictionaries(
                {
                    "name": st.from_regex(r"[a-z]{1,5}\.[a-z]{1,5}", fullmatch=True),
                    "reason": st.text(min_size=1, max_size=8).filter(str.strip),
                }
            ),
            max_size=3,
            unique_by=lambda p: p["name"],
        ),
    },
)


@SETTINGS
@given(valid_manifests)
def test_nanobot_round_trip_load_dump_load(data: dict[str, Any]) -> None:
    manifest, diagnostics = load_manifest(data)
    assert manifest is not None, diagnostics
    dumped = json.loads(json.dumps(dump_manifest(manifest)))
    again, _ = load_manifest(dumped)
    assert again == manifest
    assert dump_manifest(again) == dumped


@SETTINGS
@given(
    st.one_of(
        json_values,
        objects_with(
            {
                "name": json_values,
                "pi": json_values
                | objects_with(
                    {
                        "extensions": path_lists,
                        "skills": path_lists,
                        "prompts": path_lists,
                        "themes": path_lists,
                    }
                ),
                "dependencies": json_values,
                "peerDependencies": json_values,
                "peerDependenciesMeta": json_values,
            }
        ),
    )
)
def test_pi_package_json_never_raises(workdir: Path, manifest: object) -> None:
    tree: dict[str, object] = {
        "package.json": dumps(manifest),
        "extensions/a.ts": "",
        "extensions/sub/index.ts": "",
        "skills/s/SKILL.md": "---\nname: s\n---\n",
        "prompts/p.md": "P",
        "themes/t.json": "{}",
    }
    check(workdir / "pi", tree, "pi")


@SETTINGS
@given(
    st.one_of(
        json_values,
        objects_with(
            {
                "name": json_values,
                "nu": json_values
                | objects_with(
                    {
                        "namespace": json_values,
                        "tools": path_lists,
                        "skills": path_lists,
                        "extensions": path_lists,
                        "policy": path_text | json_values,
                        "secrets": json_values,
                        "config": json_values,
                        "client": json_values
                        | objects_with({"commands": json_values, "tools": json_values}),
                    }
                ),
            }
        ),
    )
)
def test_nu_package_json_never_raises(workdir: Path, manifest: object) -> None:
    tree: dict[str, object] = {
        "package.json": dumps(manifest),
        "tools/t/tool.yaml": "name: x__t\nversion: 1\ndescription: d\nargs_schema: {}\nentry: i.ts\n",
        "policy.yaml": "rules: []\n",
    }
    check(workdir / "nu", tree, "nu")


@SETTINGS
@given(
    st.one_of(
        st.text(max_size=300),
        st.binary(max_size=300),
        json_values.map(json.dumps),
        st.lists(
            st.sampled_from(
                [
                    "name: x__y",
                    "version: 1",
                    "version: -1",
                    "description: d",
                    "entry: ../x",
                    "entry: i.ts",
                    "args_schema: {type: object}",
                    "args_schema: [1]",
                    "secrets: [A]",
                    "idempotency: at_most_once",
                    "? [a, b]\n: c",
                    "a: &a [*a]",
                    "when: 2001-13-45",
                    "x: !!python/object:os.system {}",
                    "y: !!binary AAAA",
                    "- list",
                    "{",
                    "'",
                ]
            ),
            max_size=6,
        ).map("\n".join),
    )
)
def test_nu_tool_yaml_never_raises(workdir: Path, content: str | bytes) -> None:
    package_json = {"name": "p", "nu": {"namespace": "x", "tools": ["tools/*/tool.yaml"]}}
    check(
        workdir / "nu_package",
        {"package.json": package_json, "tools/t/tool.yaml": content, "tools/t/i.ts": ""},
        "nu",
    )
    check(workdir / "nu_tool", {"tool.yaml": content, "i.ts": ""}, "nu")


@SETTINGS
@given(
    st.one_of(
        json_values,
        objects_with(
            {
                "id": json_values | st.text(max_size=8),
                "configSchema": json_values,
                "kind": json_values,
                "categories": json_values,
                "channels": path_lists,
                "providers": json_values,
                "skills": path_lists,
                "contracts": json_values
                | st.dictionaries(st.text(max_size=8), path_lists, max_size=3),
                "toolMetadata": json_values,
                "commandAliases": json_values,
                "cliCommands": json_values,
                "mcpServers": json_values,
                "setup": json_values,
                "providerAuthEnvVars": json_values,
            }
        ),
    ),
    json_values
    | objects_with(
        {
            "name": json_values,
            "openclaw": json_values
            | objects_with(
                {
                    "extensions": path_lists,
                    "runtimeExtensions": path_lists,
                    "setupEntry": json_values,
                    "runtimeSetupEntry": json_values,
                }
            ),
        }
    ),
)
def test_openclaw_manifests_never_raise(
    workdir: Path, plugin: object, package_json: object
) -> None:
    tree: dict[str, object] = {
        "openclaw.plugin.json": dumps(plugin),
        "package.json": dumps(package_json),
        "index.ts": "",
    }
    check(workdir / "openclaw", tree, "openclaw")


@SETTINGS
@given(st.binary(max_size=200))
def test_arbitrary_bytes_in_every_manifest_never_raise(workdir: Path, content: bytes) -> None:
    for name, ecosystem in (
        ("extension.json", "nimlet"),
        ("nanobot.extension.json", "nanobot"),
        ("openclaw.plugin.json", "openclaw"),
        ("package.json", "pi"),
        ("package.json", "nu"),
    ):
        check(workdir / f"bytes-{ecosystem}", {name: content}, ecosystem)


@SETTINGS
@given(path_text, path_text)
def test_glob_match_never_raises(pattern: str, path: str) -> None:
    assert match(pattern, path) in (True, False)
