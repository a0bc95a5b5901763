"""Installs of hostile packages: their npm configuration, their size, their depth, and
installs that race or die. Each test failed before the change it covers."""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import tarfile
import threading
from pathlib import Path

import pytest

from gateway.packages import (
    InstallError,
    InstallLimits,
    _installer,
    collect_garbage,
    package_folder,
)
from gateway.packages._extract import extract_tarball
from gateway.packages._locks import held, lock_path
from gateway.packages._trees import Budget, _copy_file, copy_tree, remove_tree
from gateway.packages._verify import VerifyError
from tests.gateway.packages._helpers import (
    cli,
    install_from,
    nanobot,
    recorded,
    staging_leftovers,
    version_folders,
    write_tree,
)

needs_npm = pytest.mark.skipif(shutil.which("npm") is None and shutil.which("node") is None,
                               reason="npm is not installed")  # fmt: skip


def _tarball(
    path: Path, files: dict[str, bytes | str], modes: dict[str, int] | None = None
) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            info.mode = (modes or {}).get(name, 0o644)
            archive.addfile(info, io.BytesIO(data))
    return path


def _tree_size(root: Path) -> tuple[int, int]:
    files = size = 0
    for folder, _, names in os.walk(root):
        for name in names:
            files += 1
            size += os.lstat(os.path.join(folder, name)).st_size
    return files, size


# --------------------------------------------------------------------------- npm config


@needs_npm
def test_a_tarballs_own_npmrc_configures_nothing(tmp_path: Path) -> None:
    """`git=./evil.sh` would run the package's script while npm resolves a git dependency;
    `cache=` would write outside GATEWAY_HOME. npm must not read the package's .npmrc."""
    marker, outside = tmp_path / "evil-ran", tmp_path / "outside-cache"
    manifest = {"name": "evil-npmrc", "version": "1.0.0", "pi": {"extensions": ["./index.ts"]},
                "dependencies": {"dep": "git+https://127.0.0.1:9/dep.git"}}  # fmt: skip
    tarball = _tarball(
        tmp_path / "evil-npmrc-1.0.0.tgz",
        {
            "package.json": json.dumps(manifest),
            "index.ts": "export default () => {}\n",
            "evil.sh": f"#!/bin/sh\ntouch {marker}\nexit 1\n",
            ".npmrc": f"git=./evil.sh\ncache={outside}\n",
        },
        modes={"evil.sh": 0o755},
    )
    with pytest.raises(InstallError, match="npm install of the package's dependencies failed"):
        install_from(tmp_path / "home", tarball, kind="npm")  # 127.0.0.1:9 refuses git
    assert not marker.exists()
    assert not outside.exists()


@needs_npm
def test_a_file_dependency_outside_the_package_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    manifest = {"name": "file-dep", "version": "1.0.0", "pi": {"extensions": ["./index.ts"]},
                "dependencies": {"keys": "file:../../../../keys"}}  # fmt: skip
    tarball = _tarball(tmp_path / "file-dep-1.0.0.tgz",
                       {"package.json": json.dumps(manifest), "index.ts": ""})  # fmt: skip
    with pytest.raises(InstallError, match=r"dependency keys \(file:.*\) points outside"):
        install_from(tmp_path / "home", tarball, kind="npm")
    assert recorded(tmp_path / "home") == []


# --------------------------------------------------------------------------- limits while writing


def test_copying_stops_at_the_byte_limit(tmp_path: Path) -> None:
    source = write_tree(tmp_path / "src", {f"blob{n}.bin": "x" * 1_000_000 for n in range(20)})
    with pytest.raises(VerifyError, match="larger than 3000000 bytes"):
        copy_tree(source, tmp_path / "copy", InstallLimits(max_bytes=3_000_000))
    _, size = _tree_size(tmp_path / "copy")
    assert size <= 3_000_000  # stopped on the way, not after 20 MB


def _disk_usage(root: Path) -> int:
    """Bytes really on disk under ``root`` (blocks, as ``du`` counts them)."""
    used = 0
    for folder, _, names in os.walk(root):
        used += sum(os.lstat(os.path.join(folder, name)).st_blocks * 512 for name in names)
    return used


def test_a_sparse_file_over_the_limit_is_refused_before_a_byte_of_it_is_written(
    tmp_path: Path,
) -> None:
    """A 4 GiB sparse file costs nothing to make: its declared size is checked before the
    copy is opened, so the install does not write zeros up to the limit first."""
    source = write_tree(tmp_path / "src", {"small.txt": "x" * 1000})
    os.truncate(os.open(source / "big.bin", os.O_CREAT | os.O_WRONLY, 0o600), 4 << 30)
    with pytest.raises(VerifyError, match="larger than 10000000 bytes"):
        copy_tree(source, tmp_path / "copy", InstallLimits(max_bytes=10_000_000))
    assert not (tmp_path / "copy" / "big.bin").exists()
    assert _disk_usage(tmp_path / "copy") < 100_000


def test_a_sparse_file_in_a_local_install_is_refused_before_the_staging_fills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the staging held when the install was refused (kept here instead of removed)."""
    monkeypatch.setattr(_installer, "remove_tree", lambda path: None)
    source = nanobot(tmp_path / "src", "sparse.pkg")
    os.truncate(os.open(source / "big.bin", os.O_CREAT | os.O_WRONLY, 0o600), 4 << 30)
    with pytest.raises(InstallError, match="larger than 50000000 bytes"):
        install_from(tmp_path / "home", source, limits=InstallLimits(max_bytes=50_000_000))
    assert _disk_usage(tmp_path / "home") < 1_000_000


def test_a_file_growing_while_copied_stops_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What is read counts, not what ``stat`` said: a file that declares nothing and yields
    5 MB is cut before the chunk that crosses the limit is written."""
    source = write_tree(tmp_path / "src", {"grows.bin": "x" * 5_000_000})
    real_fstat = os.fstat

    def declares_nothing(fd: int) -> os.stat_result:
        info = list(real_fstat(fd))
        info[stat.ST_SIZE] = 0
        return os.stat_result(info)

    monkeypatch.setattr(os, "fstat", declares_nothing)
    copy, budget = tmp_path / "grows.bin", Budget(InstallLimits(max_bytes=3_000_000))
    with pytest.raises(VerifyError, match="larger than 3000000 bytes"):
        _copy_file(str(source / "grows.bin"), str(copy), 0o600, budget)
    monkeypatch.undo()
    assert copy.stat().st_size <= 3_000_000


def test_copying_stops_at_the_file_limit(tmp_path: Path) -> None:
    source = write_tree(tmp_path / "src", {f"f{n}.txt": "x" for n in range(50)})
    with pytest.raises(VerifyError, match="more than 5 files"):
        copy_tree(source, tmp_path / "copy", InstallLimits(max_files=5))
    assert _tree_size(tmp_path / "copy")[0] <= 5


def test_unpacking_refuses_a_member_over_the_limit_before_writing_it(tmp_path: Path) -> None:
    """100 MB of zeros compress to about 100 KB: the size in the member's header is
    checked before a byte of it is written."""
    archive = tmp_path / "bomb.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("package/zeros.bin")
        info.size = 100_000_000

        class Zeros(io.RawIOBase):
            def readable(self) -> bool:
                return True

            def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
                buffer[:] = bytes(len(buffer))
                return len(buffer)

        tar.addfile(info, io.BufferedReader(Zeros()))
    assert archive.stat().st_size < 1_000_000
    with pytest.raises(VerifyError, match="larger than 10000000 bytes"):
        extract_tarball(archive, tmp_path / "out", InstallLimits(max_bytes=10_000_000))
    assert _tree_size(tmp_path / "out") == (0, 0)


def test_unpacking_stops_at_the_file_limit(tmp_path: Path) -> None:
    archive = _tarball(tmp_path / "many.tgz", {f"f{n}.txt": "x" for n in range(50)})
    with pytest.raises(VerifyError, match="more than 5 files"):
        extract_tarball(archive, tmp_path / "out", InstallLimits(max_files=5))
    assert _tree_size(tmp_path / "out")[0] <= 5


def test_limits_hold_while_copying_even_without_the_check_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the check after the copy taken away, the copy itself still refuses: the limits
    are enforced while writing, not only once everything is on disk."""
    monkeypatch.setattr(_installer, "verify_tree", lambda root, limits: (0, 0))
    files = {f"blob{n}.bin": "x" * 1_000_000 for n in range(5)}
    source = nanobot(tmp_path / "src", "big.pkg", files=files)
    with pytest.raises(InstallError, match="larger than 3000000 bytes"):
        install_from(tmp_path / "home", source, limits=InstallLimits(max_bytes=3_000_000))


@needs_npm
def test_limits_hold_while_unpacking_even_without_the_check_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_installer, "verify_tree", lambda root, limits: (0, 0))
    manifest = {"name": "big", "version": "1.0.0", "pi": {"extensions": ["./index.ts"]}}
    files = {f"blob{n}.bin": "x" * 1_000_000 for n in range(5)}
    tarball = _tarball(tmp_path / "big-1.0.0.tgz", {"package.json": json.dumps(manifest), **files})
    with pytest.raises(InstallError, match="larger than 3000000 bytes"):
        install_from(
            tmp_path / "home", tarball, kind="npm", limits=InstallLimits(max_bytes=3_000_000)
        )


def test_installed_files_are_private_to_the_user(tmp_path: Path) -> None:
    source = nanobot(tmp_path / "src", "modes.pkg", files={"bin/tool": "#!/bin/sh\n"})
    (source / "bin" / "tool").chmod(0o755)
    path = install_from(tmp_path / "home", source).package.record.path
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    assert stat.S_IMODE((path / "bin").stat().st_mode) == 0o700
    assert stat.S_IMODE((path / "bin" / "tool").stat().st_mode) == 0o700
    assert stat.S_IMODE((path / "nanobot.extension.json").stat().st_mode) == 0o600


# --------------------------------------------------------------------------- depth, one line


def _deep(root: Path, levels: int) -> Path:
    nanobot(root, "deep.pkg")
    # Build it by chdir so no path gets long: 1,200 levels of "d/".
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)
    return root


def _one_line_error(done: object, code: str) -> None:
    stderr = done.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("gateway: error:")]
    assert len(lines) == 1, stderr
    assert code in stderr or code in done.stdout, (done.stdout, stderr)  # type: ignore[attr-defined]


def test_a_folder_nested_1200_deep_is_refused_in_one_line(tmp_path: Path) -> None:
    source = _deep(tmp_path / "src", 1200)
    try:
        done = cli(tmp_path / "home", "install", str(source))
        assert done.returncode == 1
        assert "folders nested deeper than 100 levels" in done.stderr
        _one_line_error(done, "install.refused")
        assert recorded(tmp_path / "home") == [] and staging_leftovers(tmp_path / "home") == []
    finally:
        remove_tree(source)  # pytest's own clean-up of old temp folders recurses


def test_a_package_json_nested_10000_deep_is_refused_in_one_line(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "package.json").write_text(
        '{"name": "deep", "pi": ' + "[" * 10_000 + "]" * 10_000 + "}"
    )
    done = cli(tmp_path / "home", "install", str(source))
    assert done.returncode == 1
    # The refusal is one line; under it, the package's own reason with its code.
    _one_line_error(done, "package.json_invalid")
    assert recorded(tmp_path / "home") == []
    inspected = cli(tmp_path / "home", "inspect", str(source))
    assert "Traceback" not in inspected.stderr


@needs_npm
def test_an_npm_tarball_whose_package_json_nests_10000_deep_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    deep = '{"name": "deep", "dependencies": {"x": "1"}, "pi": ' + "[" * 10_000 + "]" * 10_000 + "}"
    tarball = _tarball(tmp_path / "deep-1.0.0.tgz", {"package.json": deep})
    done = cli(tmp_path / "home", "install", str(tarball), "--kind", "npm")
    assert done.returncode == 1
    _one_line_error(done, "package.json_invalid")


def test_an_empty_source_is_refused_not_the_current_folder(tmp_path: Path) -> None:
    cwd = nanobot(tmp_path / "cwd", "current.folder")
    with pytest.raises(InstallError, match="no source given"):
        install_from(tmp_path / "home", "", kind=None)
    done = cli(tmp_path / "home", "install", "", cwd=cwd)
    assert done.returncode == 2
    _one_line_error(done, "cli.invalid_argument")
    assert recorded(tmp_path / "home") == []


# --------------------------------------------------------------------------- races and deaths


def test_the_staging_of_a_dead_install_goes_at_the_next_install(tmp_path: Path) -> None:
    home = tmp_path / "home"
    dead = home / "packages" / ".staging" / "0123dead"
    (dead / "package").mkdir(parents=True)
    live = home / "packages" / ".staging" / "4567live"
    (live / "package").mkdir(parents=True)
    with held(lock_path(home / "packages", "staging-4567live")):  # an install under way
        install_from(home, nanobot(tmp_path / "src", "next.pkg"))
        collect_garbage(home)  # what `gateway install` runs first
        assert staging_leftovers(home) == [live]
    assert collect_garbage(home) == [live]


def test_collection_spares_the_version_folder_of_a_pending_install(tmp_path: Path) -> None:
    """Before the lock, garbage collection took the folder placed by an install that had
    not recorded it yet — and its copy kept the source's old mtime, so age did not help."""
    home = tmp_path / "home"
    install_from(home, nanobot(tmp_path / "other", "other.pkg"))  # so a store exists
    source = nanobot(tmp_path / "src", "pending.pkg")
    os.utime(source, (0, 0))
    collected: list[Path] = []

    def checkpoint(step: str) -> None:
        if step == "placed":  # another gateway starts an install here and collects
            collected.extend(collect_garbage(home, min_age=3600))

    report = install_from(home, source, checkpoint=checkpoint)
    assert collected == []
    assert report.package.record.path.is_dir()
    assert version_folders(home) == {p.record.path for p in recorded(home)}


def test_two_installs_of_one_package_take_turns(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, nanobot(tmp_path / "v0", "turns.pkg", version="0.1.0"))
    first_placed, release = threading.Event(), threading.Event()
    order: list[str] = []
    errors: list[BaseException] = []

    def first(step: str) -> None:
        order.append(f"first {step}")
        if step == "placed":
            first_placed.set()
            release.wait(30)

    def second(step: str) -> None:
        order.append(f"second {step}")
        if step == "verified":
            release.set()  # let the first go on only once the second is ready to place

    def run(version: str, checkpoint: object) -> None:
        try:
            source = nanobot(tmp_path / version, "turns.pkg", version=version)
            # Each version in its own folder: reinstalled as update and sync reinstall.
            install_from(home, source, checkpoint=checkpoint, other_source="reinstall")
        except BaseException as error:  # reported below
            errors.append(error)

    one = threading.Thread(target=run, args=("1.0.0", first))
    one.start()
    assert first_placed.wait(30)
    two = threading.Thread(target=run, args=("2.0.0", second))
    two.start()
    one.join(60)
    two.join(60)
    assert errors == []
    # The second placed only after the first had recorded its version.
    assert order.index("second placed") > order.index("first recorded")
    (package,) = recorded(home)
    assert package.record.version == "2.0.0" and package.record.path.is_dir()
    assert version_folders(home) == {package.record.path}  # the first's version went with it
    assert package_folder(home, "turns.pkg") == package.record.path.parent
