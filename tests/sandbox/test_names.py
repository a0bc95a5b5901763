"""File names from names a package controls."""

from __future__ import annotations

import types

from hypothesis import given
from hypothesis import strategies as st

from gateway.base import _paths
from gateway.sandbox import safe_name


def test_a_plain_name_is_kept() -> None:
    assert safe_name("notes-1.2_x") == "notes-1.2_x"


def test_path_tricks_become_one_harmless_component() -> None:
    for hostile in ("../../etc/passwd", "..", ".", "/abs", "a/b", "x\0y", "\n", ""):
        name = safe_name(hostile)
        assert "/" not in name and "\0" not in name and not name.startswith(".")
        assert name not in ("", ".", "..")


def test_distinct_names_stay_distinct() -> None:
    assert safe_name("a/b") != safe_name("a_b")
    assert safe_name("@scope/pkg") != safe_name("scope/pkg")


def test_a_windows_device_name_is_kept_except_on_windows(monkeypatch) -> None:
    assert safe_name("aux") == "aux"  # a package's data folder stays where it was
    monkeypatch.setattr(_paths, "os", types.SimpleNamespace(name="nt"))
    for device in ("aux", "CON", "nul.x", "com1"):
        assert safe_name(device) != device and _paths.name_problem(safe_name(device)) is None


def test_long_names_are_capped() -> None:
    assert len(safe_name("x" * 10_000)) <= 73


@given(st.text())
def test_any_name_is_a_safe_component(name: str) -> None:
    result = safe_name(name)
    assert result and len(result) <= 73
    assert set(result) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    assert not result.startswith(".")
