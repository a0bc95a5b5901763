"""Unpacking npm tarballs without tarfile's data filter (absent on Python 3.11.0-3.11.3),
with the filter's rules: nothing escapes, no special files, no setuid bits."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from pathlib import Path
from typing import Any

import pytest

from gateway.packages import InstallError
from gateway.packages._extract import ExtractError, extract_tarball
from gateway.packages._verify import InstallLimits, VerifyError
from tests.gateway.packages._helpers import install_from, recorded


def _tarball(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def _pi_package(path: Path) -> Path:
    manifest = b'{"name": "old-python-pkg", "version": "1.0.0", "keywords": ["pi-package"], "pi": {"extensions": ["./index.ts"]}}'
    return _tarball(
        path,
        [
            _file("package/package.json", manifest),
            _file("package/index.ts", b"export default function () {}\n"),
            _file("package/bin/run.sh", b"#!/bin/sh\n", 0o4755),  # setuid: dropped
        ],
    )


def test_installs_on_a_python_whose_tarfile_has_no_filter_argument(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python 3.11.0-3.11.3: extractall() has no `filter`, and there is no data_filter.
    original = tarfile.TarFile.extractall

    def old_extractall(self: tarfile.TarFile, *args: Any, **kwargs: Any) -> None:
        if "filter" in kwargs:
            raise TypeError("extractall() got an unexpected keyword argument 'filter'")
        original(self, *args, **kwargs)

    monkeypatch.setattr(tarfile.TarFile, "extractall", old_extractall)
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    report = install_from(tmp_path / "home", _pi_package(tmp_path / "pkg.tgz"), kind="npm")
    root = report.package.record.path
    assert (root / "index.ts").read_text().startswith("export default")
    # Executable stays executable; like everything under GATEWAY_HOME, it is private.
    assert stat.S_IMODE((root / "bin" / "run.sh").stat().st_mode) == 0o700


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        (_file("../evil.txt"), "'..'"),
        (_file("/etc/evil.txt"), "absolute"),
        (_link("package/out", "../../outside"), "symlink leaving the package"),
        (_link("package/abs", "/etc/passwd"), "absolute path"),
        (_link("package/hard", "/etc/passwd", tarfile.LNKTYPE), "hard link"),
    ],
    ids=["dotdot", "absolute", "symlink-out", "symlink-absolute", "hardlink-out"],
)
def test_members_leaving_the_package_are_refused(
    tmp_path: Path, member: tuple[tarfile.TarInfo, bytes | None], reason: str
) -> None:
    archive = _tarball(tmp_path / "bad.tgz", [_file("package/package.json", b"{}"), member])
    (tmp_path / "out").mkdir()
    with pytest.raises(ExtractError, match=reason):
        extract_tarball(archive, tmp_path / "out")
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "outside").exists()


def test_writing_through_an_earlier_symlink_is_refused(tmp_path: Path) -> None:
    archive = _tarball(
        tmp_path / "bad.tgz",
        # package/dir/up looks like package/.. but package/dir is package itself: it is out/..
        [_link("package/dir", "."), _link("package/dir/up", "../.."), _file("package/dir/up/x")],
    )
    (tmp_path / "out").mkdir()
    with pytest.raises(ExtractError):
        extract_tarball(archive, tmp_path / "out")
    assert not (tmp_path / "x").exists()


def test_device_files_and_fifos_are_refused(tmp_path: Path) -> None:
    fifo = tarfile.TarInfo("package/fifo")
    fifo.type = tarfile.FIFOTYPE
    archive = _tarball(tmp_path / "bad.tgz", [(fifo, None)])
    (tmp_path / "out").mkdir()
    with pytest.raises(ExtractError, match="special files"):
        extract_tarball(archive, tmp_path / "out")


def test_a_tarball_over_the_byte_limit_stops_while_unpacking(tmp_path: Path) -> None:
    archive = _tarball(
        tmp_path / "big.tgz", [_file("package/a", b"a" * 600), _file("package/b", b"b" * 600)]
    )
    (tmp_path / "out").mkdir()
    with pytest.raises(VerifyError, match="larger than 1000 bytes"):
        extract_tarball(archive, tmp_path / "out", InstallLimits(max_bytes=1000))
    assert not (tmp_path / "out" / "package" / "b").exists()


def test_a_hostile_tarball_is_an_install_refusal(tmp_path: Path) -> None:
    archive = _tarball(tmp_path / "bad.tgz", [_file("package/package.json", b"{}"), _file("../x")])
    with pytest.raises(InstallError, match=r"cannot unpack bad\.tgz: \.\./x"):
        install_from(tmp_path / "home", archive, kind="npm")
    assert recorded(tmp_path / "home") == []
    assert not os.path.exists(tmp_path / "home" / "x")


def test_a_folder_checked_before_a_link_changed_is_checked_again(tmp_path: Path) -> None:
    """The folders a file goes into are resolved once while no link changes: ``p`` first
    leads to ``sub``; re-pointed through ``d/y -> ..`` (``d/y/..`` is inside when read as
    text, its parent when resolved) it leads out, and the next file through it is refused."""
    sub = tarfile.TarInfo("sub")
    sub.type, sub.mode = tarfile.DIRTYPE, 0o755
    folder = tarfile.TarInfo("d")
    folder.type, folder.mode = tarfile.DIRTYPE, 0o755
    archive = _tarball(
        tmp_path / "relink.tgz",
        [
            (sub, None),
            _link("p", "sub"),
            _file("p/one"),
            (folder, None),
            _link("d/y", ".."),
            _link("p", "d/y/.."),
            _file("p/two"),
        ],
    )
    out = tmp_path / "out" / "package"
    with pytest.raises(ExtractError, match="outside the package"):
        extract_tarball(archive, out)
    assert (out / "sub" / "one").is_file()
    assert not (tmp_path / "out" / "two").exists()
