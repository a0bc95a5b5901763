"""``gateway shell`` left with Ctrl-C still ends the session for its packages: the session's
end reaches them and is answered before they are shut down (the loop's end once ran only
when the input ended, so an interrupted shell's packages never saw it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests._session_recorder import install_session_recorder, recorded

# Generous: what is tested is the order of the messages, not how fast they came.
WITHIN = 120.0


def test_ctrl_c_ends_the_session_for_the_packages_then_leaves_with_status_130(
    tmp_path: Path,
) -> None:
    home, workspace = tmp_path / "home", tmp_path / "workspace"
    workspace.mkdir()
    events = install_session_recorder(home, tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(tmp_path))
    errors = tmp_path / "stderr.log"
    with errors.open("wb") as sink:
        shell = subprocess.Popen(
            [sys.executable, "-m", "gateway", "shell", "--workspace", str(workspace)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=sink, env=env,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + WITHIN
        while "session_start" not in recorded(events):  # the shell waits for its input
            assert shell.poll() is None, errors.read_text()
            assert time.monotonic() < deadline, errors.read_text()
            time.sleep(0.05)
        shell.send_signal(signal.SIGINT)
        code = shell.wait(timeout=WITHIN)
    finally:
        shell.kill()
        shell.wait()
        assert shell.stdin is not None
        shell.stdin.close()
    assert code == 130, errors.read_text()
    assert "Traceback" not in errors.read_text()
    assert recorded(events) == ["initialize", "session_start", "session_end", "shutdown"]
