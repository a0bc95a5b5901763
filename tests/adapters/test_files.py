"""Reading untrusted files: every problem is a diagnostic naming the file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from adapters import _files, inspect_package
from adapters._files import Inspection, jsonable, normalize_relative
from tests.adapters._helpers import assert_well_formed, codes, messages, write_tree


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a/b.ts", "a/b.ts"),
        ("./a//b/../c.ts", "a/c.ts"),
        ("a\\b.ts", "a/b.ts"),
        ("../a", None),
        ("a/../../b", None),
        ("..\\x", None),
        ("/etc/passwd", None),
        ("\\\\server\\share", None),
        ("C:\\x", None),
        ("C:/x", None),
        ("~/x", None),
        ("a\x00b", None),
        ("", None),
        ("mod:register", "mod:register"),
    ],
)
def test_relative_paths_are_normalised_or_refused(raw: str, expected: str | None) -> None:
    assert normalize_relative(raw) == expected


def test_json_nan_is_rejected(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"extension.json": '{"name": NaN}'}))
    assert messages(entry, "package.json_invalid") == [
        "extension.json: invalid JSON: NaN is not valid JSON"
    ]


def test_deeply_nested_json_is_rejected_not_raised(tmp_path: Path) -> None:
    text = "[" * 100_000 + "]" * 100_000
    entry = inspect_package(write_tree(tmp_path, {"extension.json": text}))
    assert messages(entry, "package.json_invalid") == [
        "extension.json: invalid JSON: nested too deeply"
    ]


def test_directory_in_place_of_manifest_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "tool.json").mkdir()
    (tmp_path / "SKILL.md").write_text("Skill\n")
    entry = inspect_package(tmp_path, "nimlet")
    assert messages(entry, "package.file_unreadable") == []  # a dir is not taken for a tool
    (tmp_path / "extension.json").mkdir()
    entry = inspect_package(tmp_path, "nimlet")
    assert messages(entry, "package.file_unreadable") == ["extension.json: not a regular file"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_manifest_is_not_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "extension.json")
    entry = inspect_package(tmp_path, "nimlet")
    assert messages(entry, "package.file_unreadable") == ["extension.json: not a regular file"]


def test_oversized_manifest_is_unreadable(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": " " * (_files.MAX_FILE_BYTES + 1)})
    (message,) = messages(inspect_package(tmp_path), "package.file_unreadable")
    assert message.startswith("extension.json: 1048577 bytes, over")


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": b'\xef\xbb\xbf{"name": "x", "command": ["x"]}'})
    assert inspect_package(tmp_path).id == "x"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_manifest_symlinked_outside_is_refused(tmp_path: Path) -> None:
    write_tree(tmp_path / "outside", {"extension.json": {"name": "x", "command": ["x"]}})
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "extension.json").symlink_to(tmp_path / "outside" / "extension.json")
    entry = inspect_package(tmp_path / "pkg")
    assert messages(entry, "package.path_escape") == [
        "extension.json: resolves outside the package"
    ]


def test_scan_stops_at_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_files, "SCAN_LIMIT", 5)
    write_tree(tmp_path, {f"f{i}.ts": "" for i in range(10)})
    inspection = Inspection(tmp_path)
    assert len(list(inspection.walk())) == 5
    assert [d.code for d in inspection.diagnostics] == ["package.scan_truncated"]


def test_yaml_alias_bomb_is_cut_off(tmp_path: Path) -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        prev = chr(ord("a") + level - 1)
        name = chr(ord("a") + level)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    text = "\n".join(lines) + "\nname: x__y\nversion: 1\ndescription: d\nentry: i.ts\n"
    text += "args_schema: {type: object, properties: *i}\n"
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "i.ts": ""}))
    assert entry.contributions[0].detail["args_schema"]["properties"]  # copied, but bounded
    assert_well_formed(entry)


def test_jsonable_breaks_cycles() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    value = jsonable({1: cycle, "when": object})
    assert value["1"][0][0][0]  # nested up to the depth cap, then "..."
    assert isinstance(value["when"], str)


def test_diagnostics_carry_the_package_id(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": {"name": "notes", "command": ["x"], "extra": 1}})
    entry = inspect_package(tmp_path)
    assert {d.package for d in entry.diagnostics} == {"notes"}
    assert "nimlet.manifest_unknown_field" in codes(entry)
