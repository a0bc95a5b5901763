"""Secrets: stored outside the package, owner-only, replaced atomically, never shown."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from gateway.packages.secrets import (
    SecretsError,
    read_secrets,
    secret_status,
    secrets_path,
    set_secret,
    unset_secret,
)


def test_a_secret_is_stored_owner_only_in_an_owner_only_folder(tmp_path: Path) -> None:
    set_secret(tmp_path, "@acme/pkg", "API_TOKEN", "tok-1")
    path = secrets_path(tmp_path, "@acme/pkg")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.parent == tmp_path / "secrets"
    assert read_secrets(tmp_path, "@acme/pkg") == {"API_TOKEN": "tok-1"}


def test_ids_that_differ_only_in_unsafe_characters_get_different_files(tmp_path: Path) -> None:
    assert secrets_path(tmp_path, "a/b") != secrets_path(tmp_path, "a_b")
    assert secrets_path(tmp_path, "../x").parent == tmp_path / "secrets"


def test_status_says_set_or_unset_never_the_value(tmp_path: Path) -> None:
    set_secret(tmp_path, "pkg", "ONE", "v")
    assert secret_status(tmp_path, "pkg", ["ONE", "TWO"]) == {"ONE": True, "TWO": False}


def test_unset_removes_the_value_and_the_file_when_empty(tmp_path: Path) -> None:
    set_secret(tmp_path, "pkg", "ONE", "v")
    assert unset_secret(tmp_path, "pkg", "ONE") is True
    assert unset_secret(tmp_path, "pkg", "ONE") is False
    assert not secrets_path(tmp_path, "pkg").exists()


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [("1BAD", "v", "not a secret name"), ("A-B", "v", "not a secret name"),
     ("OK", "", "is empty"), ("OK", "a\0b", "NUL byte")],
)  # fmt: skip
def test_bad_names_and_values_are_refused(
    tmp_path: Path, name: str, value: str, problem: str
) -> None:
    with pytest.raises(SecretsError, match=problem):
        set_secret(tmp_path, "pkg", name, value)


def test_a_damaged_file_is_an_error_without_its_content(tmp_path: Path) -> None:
    path = secrets_path(tmp_path, "pkg")
    path.parent.mkdir(parents=True)
    path.write_text('{"values": "sk-live-secret"')
    with pytest.raises(SecretsError) as raised:
        read_secrets(tmp_path, "pkg")
    assert "sk-live" not in str(raised.value)
    assert secret_status(tmp_path, "pkg", ["A"]) == {"A": False}
