"""A manifest string that is not text — JSON's ``\\ud800`` escape decodes to a lone
surrogate, which no file, store or terminal can take — is the manifest's own error at
install, with its code and no traceback, and leaves nothing under ``packages/``. Each test
failed before the change: ``install`` printed a ``UnicodeEncodeError`` traceback while it
recorded the package, its version folder left behind."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from gateway.packages import InstallError, _installer
from gateway.store import StateStore
from tests.gateway.packages._helpers import (
    cli,
    install_from,
    nanobot,
    recorded,
    version_folders,
    write_tree,
)

NOT_TEXT = "evil\ud800name"
TEXT = "smile \U0001f600"
"""The control: a character beyond the BMP, written as a surrogate pair, is text."""


def _packages(name: str) -> dict[str, dict[str, object]]:
    """One package of each ecosystem whose manifest says ``name`` where a name goes."""
    return {
        "nimlet": {"extension.json": {"name": name, "command": ["./x.sh"]}, "x.sh": "#!/bin/sh\n"},
        "pi": {
            "package.json": {
                "name": "p",
                "version": "1.0.0",
                "description": name,
                "pi": {"extensions": ["./index.ts"]},
            },
            "index.ts": "export default () => {}\n",
        },
        "openclaw": {
            "package.json": {
                "name": "oc",
                "version": "1.0.0",
                "openclaw": {"extensions": ["./index.mjs"]},
            },
            "openclaw.plugin.json": {"id": "oc", "name": name, "configSchema": {}},
            "index.mjs": "export default { register() {} };\n",
        },
        "claude": {
            ".claude-plugin/plugin.json": {"name": "cc", "description": name},
            "commands/hello.md": "Say hello.\n",
        },
    }


def _left(home: Path) -> list[Path]:
    """What an install left under ``packages/`` beside its staging and lock folders."""
    root = home / "packages"
    return (
        [p for p in root.iterdir() if p.name not in (".staging", ".locks")] if root.is_dir() else []
    )


def test_a_nanobot_name_that_is_not_text_is_one_diagnostic_and_leaves_nothing(tmp_path: Path):
    home = tmp_path / "home"
    source = nanobot(tmp_path / "src", "evil.pkg")
    manifest = source / "nanobot.extension.json"
    manifest.write_text(manifest.read_text().replace('"name": "evil.pkg"', '"name": "evil\\ud800"'))
    done = cli(home, "install", str(source))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stderr
    assert "[package.json_invalid]" in done.stderr and "lone surrogate" in done.stderr
    assert "evil\\ud800" in done.stderr  # shown as its escape
    assert _left(home) == [] and recorded(home) == []


def test_the_same_package_with_text_installs(tmp_path: Path) -> None:
    source = nanobot(tmp_path / "src", "fine.pkg")
    manifest = source / "nanobot.extension.json"
    manifest.write_text(
        manifest.read_text().replace('"name": "fine.pkg"', '"name": "ok \\ud83d\\ude00"')
    )
    report = install_from(tmp_path / "home", source)
    assert report.package.record.name == "ok \U0001f600"


@pytest.mark.parametrize("ecosystem", list(_packages("x")))
def test_every_manifest_reader_refuses_a_string_that_is_not_text(tmp_path: Path, ecosystem: str):
    home = tmp_path / "home"
    with pytest.raises(InstallError) as refused:
        install_from(home, write_tree(tmp_path / "src", _packages(NOT_TEXT)[ecosystem]))
    assert "lone surrogate" in str(refused.value)
    assert _left(home) == [] and recorded(home) == []


@pytest.mark.parametrize("ecosystem", list(_packages("x")))
def test_every_manifest_reader_takes_text_beyond_the_bmp(tmp_path: Path, ecosystem: str) -> None:
    report = install_from(
        tmp_path / "home", write_tree(tmp_path / "src", _packages(TEXT)[ecosystem])
    )
    assert report.package.record.path.is_dir()


def test_an_adapter_that_lets_one_through_is_still_refused_before_a_folder(tmp_path: Path):
    home = tmp_path / "home"
    real = install_from(tmp_path / "first", nanobot(tmp_path / "a", "a.pkg")).entry

    def inspector(root: Path) -> Any:
        return dataclasses.replace(real, id=NOT_TEXT, root=str(root))

    with pytest.raises(InstallError, match="not text"):
        _installer.install(home, str(nanobot(tmp_path / "b", "b.pkg")), kind="local",
                           inspector=inspector)  # fmt: skip
    assert _left(home) == []


def test_an_install_whose_record_fails_leaves_no_folder(tmp_path: Path, monkeypatch) -> None:
    home = tmp_path / "home"
    install_from(home, nanobot(tmp_path / "a", "kept.pkg"))

    def broken(self: StateStore, *args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(StateStore, "record_install", broken)
    with pytest.raises(OSError, match="disk full"):
        install_from(home, nanobot(tmp_path / "b", "lost.pkg"))
    monkeypatch.undo()
    assert {p.id for p in recorded(home)} == {"kept.pkg"}
    assert version_folders(home) == {p.record.path for p in recorded(home)}
