"""Extension log files: safe names, private modes, a cap by rotation."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from gateway.wire import LogLimits, RotatingLog, log_path, open_log

SMALL = LogLimits(max_bytes=100, keep=2)


def test_a_hostile_name_stays_in_the_logs_folder(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    for name in ("../../evil", "/etc/passwd", "a/../../b", "..", "x\0y"):
        path = log_path(logs, name, "folder", "1a2b3c4d")
        assert path.parent == logs and path.name.endswith(".log")
        assert ".." not in path.name.split("-")[0].split("/")


def test_many_long_parts_still_make_one_file_that_can_be_opened(tmp_path: Path) -> None:
    path = log_path(tmp_path / "logs", "a" * 300, "b" * 300, "c" * 300, "1a2b3c4d")
    assert path.parent == tmp_path / "logs" and len(path.name) + len(".1") <= 255
    open_log(path).close()


def test_distinct_names_get_distinct_logs(tmp_path: Path) -> None:
    assert log_path(tmp_path, "a/b") != log_path(tmp_path, "a_b")


def test_a_log_is_private(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "ext.log"
    open_log(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_a_full_log_is_rotated_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "ext.log"
    for run in range(4):
        with open_log(path, SMALL) as log:
            log.write(f"run {run} ".encode() * 20)  # 120 bytes: full after each run
    assert path.read_bytes().startswith(b"run 3")
    assert path.with_name("ext.log.1").read_bytes().startswith(b"run 2")
    assert path.with_name("ext.log.2").read_bytes().startswith(b"run 1")
    assert not path.with_name("ext.log.3").exists()  # run 0 is gone


def test_a_rotating_log_is_capped_within_a_run(tmp_path: Path) -> None:
    path = tmp_path / "ext.log"
    log = RotatingLog(path, SMALL)
    for n in range(1000):
        log.write(f"line {n}\n".encode())
    log.close()
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == ["ext.log", "ext.log.1", "ext.log.2"]
    assert all(f.stat().st_size <= SMALL.max_bytes for f in files)
    assert path.read_bytes().rstrip().endswith(b"line 999")


def test_a_symlink_in_place_of_a_log_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / "ext.log").symlink_to(target)
    with pytest.raises(OSError):  # O_NOFOLLOW: ELOOP
        open_log(tmp_path / "ext.log").close()
    assert target.read_text() == "keep"
