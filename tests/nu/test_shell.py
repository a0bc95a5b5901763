"""`gateway shell` with Nu packages: policy approvals asked at its prompt, and a watcher's
input taken as typed input. The shells are real subprocesses."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

from tests.nu._packages import (
    Recorder,
    cli,
    cli_process,
    install_ready,
    probe_package,
    requires_runtime,
    standup,
)

pytestmark = requires_runtime


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(home.parent))
    return env


def test_the_shell_asks_a_policy_approval_and_runs_the_call_when_approved(tmp_path: Path) -> None:
    from gateway.packages import write_package_config
    from gateway.packages.secrets import set_secret

    home = tmp_path / "home"
    package = install_ready(home, standup(tmp_path / "standup"))
    set_secret(home, package, "STANDUP_TOKEN", "tok")
    cli(home, "policy", "accept", package)
    (tmp_path / "ws").mkdir()
    with Recorder() as server:
        write_package_config(home, package, {"webhookUrl": server.url})
        script = (
            '/call standup__post {"channel": "general", "text": "one"}\no\n'
            '/call standup__post {"channel": "general", "text": "two"}\nd\n/quit\n'
        )
        done = cli_process(home, "shell", "--workspace", str(tmp_path / "ws"), "--trust",
                           "--permissions", "ask", stdin=script)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert (
        out.count("! Post this standup to #general, where everyone reads it? (nu-standup:tools)")
        == 2
    )
    assert '[ok] {"posted":true,"channel":"general","id":"m1"}' in out
    assert (
        "[blocked] Blocked by policy rule nu-standup:ask-before-general: the user did not approve"
        in out
    )
    assert len(server.requests) == 1


def test_the_shell_takes_a_watchers_input_as_typed_input(tmp_path: Path) -> None:
    home = tmp_path / "home"
    watcher = """
export default (nu) => {
  nu.on("input", (event) => ({ action: "continue" }));
  nu.registerWatcher({ name: "mail", start(trigger) { setTimeout(() => trigger("New mail from Ada"), 100); } });
};
"""
    install_ready(home, probe_package(tmp_path / "pkg", {}, extensions={"watcher": watcher}))
    (tmp_path / "ws").mkdir()
    shell = subprocess.Popen(
        [sys.executable, "-m", "gateway", "shell", "--workspace", str(tmp_path / "ws"), "--trust"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=environment(home), cwd=tmp_path,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert shell.stdout is not None
        for line in shell.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    seen: list[str] = []
    try:
        while True:
            line = lines.get(timeout=60)
            seen.append(line)
            if not line or "(no model is attached" in line:
                break
        assert shell.stdin is not None
        shell.stdin.write("/quit\n")
        shell.stdin.close()
        assert shell.wait(60) == 0
    finally:
        if shell.poll() is None:
            shell.kill()
            shell.wait()
        assert shell.stdout is not None
        shell.stdout.close()
    text = "".join(seen)
    assert "(input from nu-probe: New mail from Ada)" in text
    assert "(no model is attached: the turn's events ran, nothing was sent anywhere)" in text
