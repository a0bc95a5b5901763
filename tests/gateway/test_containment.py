"""Nothing an extension starts outlives it: descendants that left its process group with
``setsid()`` are killed when it stops, and ``gateway`` commands leave no process behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gateway import open_gateway
from gateway.sandbox import package_dirs

# Starts a grandchild in a session of its own (out of the extension's process group),
# records its pid in the extension's data folder, then serves one echo tool.
ESCAPING_EXTENSION = """\
import json, os, subprocess, sys

DOUBLE_FORK = @DOUBLE_FORK@
data = os.environ["GATEWAY_DATA_DIR"]
if DOUBLE_FORK:
    # The child exits at once: its setsid grandchild is orphaned before the gateway stops.
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.path.join(data, "escaped.pid"), "w") as handle:
                handle.write(str(os.getpid()))
            os.execv("/bin/sleep", ["sleep", "300"])
        os._exit(0)
    os.wait()
    while not os.path.exists(os.path.join(data, "escaped.pid")):
        pass
else:
    child = subprocess.Popen(["/bin/sleep", "300"], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    with open(os.path.join(data, "escaped.pid"), "w") as handle:
        handle.write(str(child.pid))

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

send({"type": "register", "tools": [{"name": "act", "description": "d",
      "input_schema": {"type": "object"}}], "commands": [], "events": []})
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "shutdown":
        break
    if message.get("type") == "tool":
        send({"type": "response", "id": message["id"], "content": "done"})
"""


def write_escaping(workspace_root: Path, name: str, *, double_fork: bool) -> Path:
    folder = workspace_root / ".nimlet" / "extensions" / name
    folder.mkdir(parents=True)
    script = ESCAPING_EXTENSION.replace("@DOUBLE_FORK@", repr(double_fork))
    (folder / "ext.py").write_text(script)
    (folder / "extension.json").write_text(
        json.dumps({"name": name, "command": [sys.executable, str(folder / "ext.py")]})
    )
    return folder


def escaped_pid(home: Path, name: str) -> int:
    return int((package_dirs(home, name, create=False)[0] / "escaped.pid").read_text())


def gone(pid: int) -> bool:
    """Whether ``pid`` is dead (a zombie counts), given a moment for SIGKILL to land (the
    bound only caps a wait: a process that was killed ends well before it)."""
    deadline = time.monotonic() + 60
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not running(pid)


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rpartition(b")")[2].split()[0]
    except OSError:
        return False
    return state != b"Z"


@pytest.mark.anyio
async def test_a_grandchild_that_left_the_group_is_killed_when_its_extension_stops(workspace):
    write_escaping(workspace.root, "escaper", double_fork=False)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("act")).content == "done"
        pid = escaped_pid(workspace.config.home, "escaper")
        assert os.getpgid(pid) != gateway.processes[0].pid  # out of the group's reach
        assert running(pid)
    assert gone(pid)


def test_gateway_call_leaves_no_orphaned_grandchild_behind(tmp_path: Path) -> None:
    """The extension's child exits at once, so its grandchild is no longer below the
    extension when it stops: only the CLI, a child subreaper, still finds it."""
    project, home, user = tmp_path / "project", tmp_path / "gateway-home", tmp_path / "user"
    project.mkdir()
    user.mkdir()
    write_escaping(project, "orphaner", double_fork=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(user))
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "call", "act", "{}", "--workspace", str(project),
         "--trust"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    pid = escaped_pid(home, "orphaner")
    try:
        assert gone(pid)
    finally:
        if running(pid):
            os.kill(pid, 9)
