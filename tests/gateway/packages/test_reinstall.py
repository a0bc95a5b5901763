"""Reinstalling and editing: trust belongs to the exact content it was given for."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gateway.store import StateStore
from tests.gateway.packages._helpers import (
    by_id,
    codes,
    evaluate,
    install_from,
    make_ready,
    nanobot,
    version_folders,
)

PERMISSION = "workspace.read"


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, Path]:
    """(home, source): a package installed, granted, trusted and enabled."""
    source = nanobot(tmp_path / "src", "re.pkg", permissions=[PERMISSION], files={"a.txt": "one"})
    home = tmp_path / "home"
    install_from(home, source)
    make_ready(home, "re.pkg")
    return home, source


def test_reinstall_of_identical_content_keeps_trust_grants_and_enabled(
    installed: tuple[Path, Path],
) -> None:
    home, source = installed
    before = version_folders(home)
    report = install_from(home, source)
    package = report.package
    assert (report.result.created, report.result.hash_changed, report.result.trust_revoked) == (
        False,
        False,
        False,
    )
    assert (package.trusted, package.enabled, package.granted) == (True, True, {PERMISSION})
    assert "gate.content_changed" not in [d.code for d in report.diagnostics]
    assert version_folders(home) == {package.record.path} != before  # a fresh folder, old gone
    assert by_id(evaluate(home))["re.pkg"].trusted


def test_reinstall_of_changed_content_drops_trust_and_says_so(
    installed: tuple[Path, Path],
) -> None:
    home, source = installed
    (source / "a.txt").write_text("two")
    report = install_from(home, source)
    package = report.package
    assert (report.result.hash_changed, report.result.trust_revoked) == (True, True)
    assert not package.trusted
    assert (package.enabled, package.granted) == (True, {PERMISSION})  # only trust goes
    changed = [d for d in report.diagnostics if d.code == "gate.content_changed"]
    assert len(changed) == 1 and "trust revoked" in changed[0].message
    assert report.to_dict()["trust_revoked"] is True
    assert (package.record.path / "a.txt").read_text() == "two"
    status = by_id(evaluate(home))["re.pkg"]
    assert not status.active and "gate.untrusted" in codes(status)


def test_editing_installed_files_revokes_trust_on_next_evaluation(
    installed: tuple[Path, Path],
) -> None:
    home, _ = installed
    first = by_id(evaluate(home))["re.pkg"]
    assert first.trusted and "gate.content_changed" not in codes(first)
    path = first.package.record.path
    (path / "a.txt").write_text("tampered")  # same size: only the content hash can tell
    second = by_id(evaluate(home))["re.pkg"]
    assert not second.trusted and not second.active
    assert codes(second)[:2] == ["gate.content_changed", "gate.untrusted"]
    assert "not trusted" in second.reasons
    with StateStore.open(home) as store:
        assert not store.get_package("re.pkg").trusted  # revoked in the store, not just shown
    third = by_id(evaluate(home))["re.pkg"]
    assert "gate.content_changed" not in codes(third)  # said once
    assert "gate.untrusted" in codes(third)


def test_adding_a_file_to_an_installed_package_revokes_trust(
    installed: tuple[Path, Path],
) -> None:
    home, _ = installed
    path = by_id(evaluate(home))["re.pkg"].package.record.path
    (path / "extra.py").write_text("print('sneaked in')\n")
    status = by_id(evaluate(home))["re.pkg"]
    assert not status.trusted
    assert "gate.content_changed" in codes(status)


def test_special_file_in_an_installed_package_revokes_trust(
    installed: tuple[Path, Path],
) -> None:
    home, _ = installed
    path = by_id(evaluate(home))["re.pkg"].package.record.path
    os.mkfifo(path / "pipe")
    status = by_id(evaluate(home))["re.pkg"]
    assert not status.trusted
    assert "gate.content_changed" in codes(status)
