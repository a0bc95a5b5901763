"""``gateway logs ID [-f] [-n N]``: a package's stderr logs, its text escaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.base import GatewayConfig
from gateway.cli._logs import package_logs
from tests.gateway.packages._helpers import nanobot

PACKAGE = "logged"


@pytest.fixture
def home(tmp_path: Path, run_cli) -> Path:
    home = tmp_path / "home"
    source = nanobot(tmp_path / "src", PACKAGE)
    assert run_cli(home, "install", str(source)).returncode == 0
    return home


def runtime_log(home: Path, package_id: str = PACKAGE) -> Path:
    path = package_logs(GatewayConfig(home=home), package_id)[0]
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_logs_shows_the_last_n_lines_of_the_package_log(home: Path, run_cli) -> None:
    runtime_log(home).write_text("".join(f"line {i}\n" for i in range(100)))
    done = run_cli(home, "logs", PACKAGE, "-n", "2")
    assert (done.returncode, done.stdout) == (0, "line 98\nline 99\n")


def test_logs_shows_fifty_lines_by_default(home: Path, run_cli) -> None:
    runtime_log(home).write_text("".join(f"line {i}\n" for i in range(100)))
    assert run_cli(home, "logs", PACKAGE).stdout.splitlines()[0] == "line 50"


def test_a_package_log_cannot_drive_the_terminal(home: Path, run_cli) -> None:
    runtime_log(home).write_bytes(b"\x1b]52;c;cGF3bmVk\x07 \x1b[2J \xff done\n")
    done = run_cli(home, "logs", PACKAGE)
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert done.stdout == "\\x1b]52;c;cGF3bmVk\\x07 \\x1b[2J \ufffd done\n"


def test_the_per_call_log_is_shown_after_the_runtime_log(home: Path, run_cli) -> None:
    runtime_log(home).write_text("runtime\n")
    calls = package_logs(GatewayConfig(home=home), PACKAGE)[-1]
    calls.write_text("a call\n")
    lines = run_cli(home, "logs", PACKAGE).stdout.splitlines()
    assert lines == [f"==> {runtime_log(home)} <==", "runtime", f"==> {calls} <==", "a call"]


def test_a_package_that_logged_nothing_says_so_and_exits_0(home: Path, run_cli) -> None:
    done = run_cli(home, "logs", PACKAGE)
    assert (done.returncode, done.stdout) == (0, "")
    assert f"{PACKAGE} has logged nothing yet" in done.stderr


def test_an_unknown_id_is_one_line_with_its_code(home: Path, run_cli) -> None:
    done = run_cli(home, "logs", "nope")
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    assert "nope" in line and line.endswith("[package.unknown]")


def test_a_negative_line_count_is_bad_usage(home: Path, run_cli) -> None:
    assert run_cli(home, "logs", PACKAGE, "-n", "-3").returncode == 2


def test_follow_prints_what_is_appended_and_stops_cleanly_on_ctrl_c(home: Path) -> None:
    log = runtime_log(home)
    log.write_text("before\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(home.parent))
    child = subprocess.Popen(
        [sys.executable, "-m", "gateway", "logs", PACKAGE, "-f"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "before\n"
        with log.open("a") as file:
            file.write("after \x1b[31m\n")
        assert child.stdout.readline() == "after \\x1b[31m\n"
        log.rename(log.with_name(log.name + ".1"))  # rotated: the new file is read anew
        log.write_text("rotated\n")
        assert child.stdout.readline() == "rotated\n"
        child.send_signal(signal.SIGINT)
        # What is tested is that Ctrl-C ends it cleanly, not how fast: on a 2-core machine at
        # load 15-20 the interpreter's exit alone took longer than the 10 s this once allowed.
        _, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert (child.returncode, err) == (0, "")
