"""Names a package controls become file names only through ``gateway.base``'s one encoder
and one join: harmless names are kept, any other is encoded, and the result stays under
its root."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.base import (
    FileNames,
    PathRefused,
    _paths,
    encode_name,
    name_problem,
    safe_join,
)

HOSTILE = ["../../x", "/abs", "a/b", "a\\b", "..", ".", "", "NUL", "con", "com1.txt", "\x00",
           "x\ny", "x" * 300, "C:x", "a.", "\udcff"]  # fmt: skip


def test_a_harmless_name_is_kept_as_it_is() -> None:
    for name in ("triage", "Änderungen", "notes-1.2_x", ".hidden", "a b"):
        assert name_problem(name) is None and encode_name(name) == name


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_a_hostile_name_is_no_file_name_and_is_encoded_into_one(name: str) -> None:
    assert name_problem(name) is not None
    encoded = encode_name(name, ".md")
    assert name_problem(encoded) is None and encoded.endswith(".md")
    assert len(encoded.encode()) <= 80


@given(st.text())
def test_any_name_encodes_to_one_harmless_name_under_its_root(name: str) -> None:
    encoded = encode_name(name, ".md")
    assert name_problem(encoded) is None
    root = Path("/srv/out")
    assert safe_join(root, "skills", encoded).parent == root / "skills"


def test_distinct_names_encode_to_distinct_names() -> None:
    encoded = {encode_name(name) for name in [*HOSTILE, "a_b", "x"]}
    assert len(encoded) == len(HOSTILE) + 2


def test_the_encoding_is_deterministic() -> None:
    assert encode_name("../../x", ".md") == encode_name("../../x", ".md") == "x-9cdf6a50.md"


@pytest.mark.parametrize("name", ["../x", "..", "/etc", "a/b", "x\x00", ""], ids=repr)
def test_safe_join_refuses_a_name_that_is_not_one_harmless_name(tmp_path: Path, name: str):
    with pytest.raises(PathRefused):
        safe_join(tmp_path, "skills", name)


def test_safe_join_refuses_a_path_that_leaves_its_root_through_a_symlink(tmp_path: Path):
    root, outside = tmp_path / "out", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "skills").symlink_to(outside)
    with pytest.raises(PathRefused, match="through a symlink"):
        safe_join(root, "skills", "x")


def test_safe_join_allows_a_symlink_that_stays_under_its_root(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    assert safe_join(tmp_path, "alias", "x") == tmp_path / "alias" / "x"


def test_windows_rules_apply_to_local_names_only_on_windows(monkeypatch) -> None:
    assert name_problem("aux", portable=False) is None
    assert name_problem("aux") is not None  # an output may be copied to Windows
    monkeypatch.setattr(_paths, "os", types.SimpleNamespace(name="nt"))
    assert name_problem("aux", portable=False) is not None


def test_names_that_differ_only_in_case_or_unicode_form_are_one_file() -> None:
    names = FileNames()
    assert names.claim("Review", "first") is None
    assert names.claim("review", "second") == "first"
    assert names.claim("caf\u00e9", "nfc") is None
    assert names.claim("cafe\u0301", "nfd") == "nfc"


def test_a_clashing_name_can_be_given_its_encoded_form_instead() -> None:
    names = FileNames()
    assert names.unique("Fmt", ".mjs") == "Fmt.mjs"
    second = names.unique("fmt", ".mjs")
    assert second is not None and second.startswith("fmt-") and second.endswith(".mjs")
