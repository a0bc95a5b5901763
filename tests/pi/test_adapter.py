"""Pi: package.json `pi` manifests, globs and override patterns, convention directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters import inspect_package
from gateway.base import Severity
from tests.adapters._helpers import assert_well_formed, codes, errors, messages, names, write_tree

# Shaped like the real @aliou/pi-processes package.json (0.13.x), trimmed.
PI_PROCESSES = {
    "name": "@aliou/pi-processes",
    "version": "0.13.1",
    "license": "MIT",
    "type": "module",
    "keywords": ["pi-package", "pi-extension", "pi", "processes"],
    "pi": {
        "extensions": [
            "./extensions/processes/index.ts",
            "./extensions/processes-logs/index.ts",
            "./extensions/processes-dock/index.ts",
        ],
        "skills": ["./skills/pi-processes"],
        "image": "https://assets.aliou.me/github/aliou/pi-processes/banner-v0.10.x.png",
    },
    "engines": {"node": ">=22.19.0"},
    "dependencies": {
        "@aliou/pi-utils-settings": "^0.19.1",
        "@aliou/pi-utils-ui": "^0.5.0",
        "@aliou/sh": "^0.2.2",
    },
    "peerDependencies": {
        "@earendil-works/pi-ai": "*",
        "@earendil-works/pi-coding-agent": "*",
        "@earendil-works/pi-durable": "*",
        "@earendil-works/pi-tui": "*",
        "typebox": "*",
    },
    "peerDependenciesMeta": {
        "@earendil-works/pi-ai": {"optional": True},
        "@earendil-works/pi-tui": {"optional": True},
    },
}


def test_pi_conformance_pi_processes_layout(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "package.json": PI_PROCESSES,
            "extensions/processes/index.ts": "export default (pi) => {}\n",
            "extensions/processes-logs/index.ts": "",
            "extensions/processes-dock/index.ts": "",
            "extensions/processes/manager.ts": "",
            "skills/pi-processes/SKILL.md": "---\nname: pi-processes\n"
            "description: Manage background processes.\n---\n",
            "src/utils.ts": "",
        },
    )
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.version, entry.runtime) == (
        "pi",
        "@aliou/pi-processes",
        "0.13.1",
        "node-sidecar",
    )
    assert entry.entries == [
        "extensions/processes/index.ts",
        "extensions/processes-logs/index.ts",
        "extensions/processes-dock/index.ts",
    ]
    assert names(entry, "skill") == ["pi-processes"]
    host = {d.name: d.optional for d in entry.dependencies if d.provided_by_host}
    assert host == {
        "@earendil-works/pi-ai": True,
        "@earendil-works/pi-coding-agent": False,
        "@earendil-works/pi-tui": True,
        "typebox": False,
    }
    plain = [d.name for d in entry.dependencies if not d.provided_by_host]
    assert plain == [
        "@aliou/pi-utils-settings",
        "@aliou/pi-utils-ui",
        "@aliou/sh",
        "@earendil-works/pi-durable",  # a peer pi does not alias
    ]
    assert codes(entry) == ["pi.contributions_runtime_only"]
    assert_well_formed(entry)


def test_pi_extension_directory_entry_uses_index(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["./extensions"]}}
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "extensions/a.ts": "",
            "extensions/b.js": "",
            "extensions/notes.md": "",
            "extensions/sub/index.ts": "",
            "extensions/sub/helper.ts": "",
            "extensions/nested/package.json": {"pi": {"extensions": ["./main.ts"]}},
            "extensions/nested/main.ts": "",
            "extensions/empty/readme.txt": "",
        },
    )
    assert inspect_package(tmp_path).entries == [
        "extensions/a.ts",
        "extensions/b.js",
        "extensions/nested/main.ts",
        "extensions/sub/index.ts",
    ]


def test_pi_glob_entries_are_resolved_against_package_files(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["src/**/*.ext.ts"]}}
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "src/a.ext.ts": "",
            "src/deep/b.ext.ts": "",
            "src/c.ts": "",
            "node_modules/x/d.ext.ts": "",
        },
    )
    assert inspect_package(tmp_path).entries == ["src/a.ext.ts", "src/deep/b.ext.ts"]


def test_pi_exclude_pattern_filters_entries(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["src/*.ts", "!**/*.test.ts"]}}
    write_tree(tmp_path, {"package.json": package, "src/a.ts": "", "src/a.test.ts": ""})
    assert inspect_package(tmp_path).entries == ["src/a.ts"]


def test_pi_force_include_overrides_exclude(tmp_path: Path) -> None:
    package = {
        "name": "p",
        "pi": {"extensions": ["src", "!*.test.ts", "+src/keep.test.ts"]},
    }
    write_tree(
        tmp_path,
        {"package.json": package, "src/a.ts": "", "src/keep.test.ts": "", "src/drop.test.ts": ""},
    )
    assert inspect_package(tmp_path).entries == ["src/a.ts", "src/keep.test.ts"]


def test_pi_force_exclude_overrides_force_include(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["src", "+src/a.ts", "-./src/a.ts"]}}
    write_tree(tmp_path, {"package.json": package, "src/a.ts": "", "src/b.ts": ""})
    assert inspect_package(tmp_path).entries == ["src/b.ts"]


def test_pi_skill_exclusion_matches_the_skill_folder(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"skills": ["skills", "!old"]}}
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "skills/new/SKILL.md": "---\nname: new\ndescription: d\n---\n",
            "skills/old/SKILL.md": "---\nname: old\ndescription: d\n---\n",
        },
    )
    assert names(inspect_package(tmp_path), "skill") == ["new"]


def test_pi_skills_dir_takes_root_md_and_nested_skill_md(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"skills": ["skills"]}}
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "skills/quick.md": "Quick skill.\n",
            "skills/deep/SKILL.md": "---\nname: deep\ndescription: d\n---\n",
            "skills/deep/reference.md": "not a skill\n",
        },
    )
    assert names(inspect_package(tmp_path), "skill") == ["deep", "quick"]


def test_pi_prompts_and_themes_are_listed(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"prompts": ["prompts"], "themes": ["themes/dark.json"]}}
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "prompts/review.md": "---\ndescription: Review\n---\nReview it\n",
            "themes/dark.json": {"name": "dark"},
        },
    )
    entry = inspect_package(tmp_path)
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("prompt", "review"),
        ("theme", "dark"),
    ]
    assert entry.runtime == "declarative" and codes(entry) == []


def test_pi_convention_directories_without_pi_key(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "package.json": {"name": "conv", "keywords": ["pi-package"]},
            "extensions/tool.ts": "",
            "skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\n",
            "prompts/p.md": "P\n",
            "themes/t.json": "{}",
        },
    )
    entry = inspect_package(tmp_path)
    assert entry.ecosystem == "pi" and entry.entries == ["extensions/tool.ts"]
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("skill", "s"),
        ("prompt", "p"),
        ("theme", "t"),
    ]


def test_pi_manifest_key_absent_means_no_resources_of_that_kind(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["index.ts"]}}
    write_tree(tmp_path, {"package.json": package, "index.ts": "", "skills/s/SKILL.md": "S\n"})
    assert names(inspect_package(tmp_path), "skill") == []


def test_pi_missing_entry_is_a_warning(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["./index.ts"]}}
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "package.entry_not_found") == [
        "package.json pi.extensions[0]: './index.ts' does not exist in the package"
    ]
    assert "pi.no_resources" in codes(entry)


def test_pi_glob_matching_nothing_is_a_warning(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["src/*.ts"]}}
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "package.entry_not_found") == [
        "package.json pi.extensions[0]: 'src/*.ts' matches nothing"
    ]


def test_pi_entry_escaping_package_is_an_error(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["../other/index.ts"]}}
    entry = inspect_package(write_tree(tmp_path / "pkg", {"package.json": package}))
    assert messages(entry, "package.path_escape") == [
        "package.json pi.extensions[0]: '../other/index.ts' is absolute or leaves the package"
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_pi_symlink_out_of_package_is_not_followed(tmp_path: Path) -> None:
    write_tree(tmp_path / "outside", {"secret.ts": ""})
    package = {"name": "p", "pi": {"extensions": ["./ext.ts", "./dir"]}}
    root = write_tree(tmp_path / "pkg", {"package.json": package})
    (root / "ext.ts").symlink_to(tmp_path / "outside" / "secret.ts")
    (root / "dir").symlink_to(tmp_path / "outside", target_is_directory=True)
    entry = inspect_package(root)
    assert entry.entries == []
    assert messages(entry, "package.path_escape") == [
        "package.json pi.extensions[0]: './ext.ts' resolves outside the package",
        "package.json pi.extensions[1]: './dir' resolves outside the package",
    ]


def test_pi_key_must_be_an_object(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"package.json": {"name": "p", "pi": True}}))
    assert messages(entry, "pi.manifest_invalid") == [
        "package.json: pi must be an object (got a boolean)"
    ]


def test_pi_resource_key_must_be_a_string_array(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": "./index.ts", "skills": [1]}}
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "index.ts": ""}))
    assert messages(entry, "pi.manifest_invalid") == [
        "package.json pi: extensions must be an array of strings (got a string)",
        "package.json pi: skills[0] must be a non-empty string (got a number)",
    ]


def test_pi_unknown_manifest_key_is_noted(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extension": ["./index.ts"]}}
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "index.ts": ""}))
    assert messages(entry, "pi.manifest_unknown_key") == [
        "package.json pi: unknown field extension"
    ]


def test_pi_host_package_in_dependencies_is_a_note_not_a_warning(tmp_path: Path) -> None:
    """pi-web-access lists typebox in dependencies: the host's copy is loaded all the same,
    and the user who installs it can do nothing about its author's package.json (it was a
    warning telling the user to edit peerDependencies)."""
    package = {
        "name": "p",
        "pi": {"extensions": ["index.ts"]},
        "dependencies": {"@mariozechner/pi-tui": "^0.50.0", "zod": "^3"},
    }
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "index.ts": ""}))
    assert messages(entry, "pi.host_package_bundled") == [
        "package.json: @mariozechner/pi-tui, a Pi host package, is among its dependencies: the "
        "host's copy is loaded in its place, as Pi does (for its author: peerDependencies)"
    ]
    (bundled,) = [d for d in entry.diagnostics if d.code == "pi.host_package_bundled"]
    assert bundled.severity is Severity.INFO


def test_pi_bad_dependency_table_is_a_warning(tmp_path: Path) -> None:
    package = {"name": "p", "pi": {"extensions": ["index.ts"]}, "dependencies": ["zod"]}
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "index.ts": ""}))
    assert messages(entry, "package.field_invalid") == ["package.json: dependencies is an array"]
    assert errors(entry) == []


def test_pi_package_without_name_uses_folder(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path / "folder", {"package.json": {"pi": {}}}), "pi")
    assert entry.id == "folder" and "package.name_missing" in codes(entry)
