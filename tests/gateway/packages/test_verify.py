"""Checks on a fetched tree before it is installed: symlinks leaving the package, special
files, size and file-count limits, and folders that hold no package at all."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest

from gateway.packages import InstallError, InstallLimits
from gateway.packages._verify import VerifyError, verify_tree
from tests.gateway.packages._helpers import (
    install_from,
    nanobot,
    recorded,
    staging_leftovers,
    version_folders,
    write_tree,
)


def assert_nothing_installed(home: Path) -> None:
    assert recorded(home) == []
    assert version_folders(home) == set()
    assert staging_leftovers(home) == []


@pytest.mark.parametrize("target", ["absolute", "relative"])
def test_symlink_pointing_outside_the_package_is_refused(tmp_path: Path, target: str) -> None:
    secret = write_tree(tmp_path / "elsewhere", {"secret.txt": "not yours"}) / "secret.txt"
    source = nanobot(tmp_path / "src", "link.out")
    link = source / "docs" / "secret.txt"
    link.parent.mkdir()
    link.symlink_to(secret if target == "absolute" else os.path.relpath(secret, link.parent))
    with pytest.raises(InstallError, match=r"symlink docs/secret\.txt points outside the package"):
        install_from(tmp_path / "home", source)
    assert_nothing_installed(tmp_path / "home")


def test_symlink_inside_the_package_is_kept(tmp_path: Path) -> None:
    source = nanobot(tmp_path / "src", "link.in", files={"docs/real.md": "# real\n"})
    (source / "README.md").symlink_to("docs/real.md")
    (source / "alias").symlink_to("docs", target_is_directory=True)
    path = install_from(tmp_path / "home", source).package.record.path
    assert os.readlink(path / "README.md") == "docs/real.md"
    assert (path / "README.md").read_text() == "# real\n"
    assert (path / "alias" / "real.md").read_text() == "# real\n"


def test_fifo_is_refused(tmp_path: Path) -> None:
    tree = nanobot(tmp_path / "tree", "fifo.pkg")
    os.mkfifo(tree / "pipe")
    with pytest.raises(VerifyError, match="pipe is not a regular file, folder or symlink"):
        verify_tree(tree, InstallLimits())
    # An npm tarball carrying a FIFO is refused when it is unpacked.
    tarball = tmp_path / "fifo-1.0.0.tgz"
    with tarfile.open(tarball, "w:gz") as archive:
        manifest = json.dumps({"name": "fifo", "version": "1.0.0", "pi": {}}).encode()
        info = tarfile.TarInfo("package/package.json")
        info.size = len(manifest)
        archive.addfile(info, io.BytesIO(manifest))
        fifo = tarfile.TarInfo("package/pipe")
        fifo.type = tarfile.FIFOTYPE
        archive.addfile(fifo)
    with pytest.raises(InstallError, match="cannot unpack"):
        install_from(tmp_path / "home", tarball, kind="npm")
    assert_nothing_installed(tmp_path / "home")


def test_fifo_in_a_local_folder_is_an_install_error(tmp_path: Path) -> None:
    source = nanobot(tmp_path / "src", "fifo.pkg")
    os.mkfifo(source / "pipe")
    with pytest.raises(InstallError):
        install_from(tmp_path / "home", source)
    assert_nothing_installed(tmp_path / "home")


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        (InstallLimits(max_files=3), "more than 3 files"),
        (InstallLimits(max_bytes=1000), "larger than 1000 bytes"),
    ],
    ids=["files", "bytes"],
)
def test_package_over_a_limit_is_refused(
    tmp_path: Path, limits: InstallLimits, message: str
) -> None:
    files = {f"data/{n}.txt": "x" * 300 for n in range(4)}
    source = nanobot(tmp_path / "src", "big.pkg", files=files)
    with pytest.raises(InstallError, match=message):
        install_from(tmp_path / "home", source, limits=limits)
    assert_nothing_installed(tmp_path / "home")
    # The same package within the limits installs.
    roomy = InstallLimits(max_files=5, max_bytes=10_000)
    assert install_from(tmp_path / "home", source, limits=roomy).files == 5


def test_folder_without_package_metadata_is_refused(tmp_path: Path) -> None:
    source = write_tree(tmp_path / "src", {"README.txt": "just a folder", "main.py": "print(1)"})
    with pytest.raises(
        InstallError,
        match="no nimlet, Nu, nanobot, Pi, OpenClaw, Agent Plugin, Claude Code plugin, Codex "
        "plugin or Gemini CLI extension metadata",
    ) as err:
        install_from(tmp_path / "home", source)
    assert [d.code for d in err.value.diagnostics] == ["package.not_detected"]
    assert_nothing_installed(tmp_path / "home")
