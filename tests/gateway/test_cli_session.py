"""The warm session (docs/session.md): ``gateway list``, ``call`` and ``command`` served by a
background process per workspace — the same output as a one-shot run, what other commands
change seen at once, a private socket, a stale one cleaned, and a one-shot run whenever the
session cannot be used. The commands a session serves are real CLI processes (a reader's
terminal starts one per command); the one-shot runs they are compared with run in this
process (``tests/_cli.run_here``: the same environment, folder and streams). One home for
the module."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.cli._session_client import wait_gone
from gateway.cli._session_paths import SessionPlace
from gateway.packages import install, load_adapters
from gateway.sandbox import package_dirs
from gateway.store import StateStore
from tests._cli import run_here
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow  # measured long: scheduled first (tests/conftest.py)


class Home:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "user" / ".gateway"
        self.workspace = root / "ws"
        self.workspace.mkdir(parents=True)
        # Where its confined process may write: its data folder.
        self.log = package_dirs(self.home, "echo")[0] / "received.jsonl"

    def env(self, **more: str) -> dict[str, str]:
        base = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
        return {**base, "HOME": str(self.home.parent), "GATEWAY_HOME": str(self.home),
                "GATEWAY_SESSION": "on", "GATEWAY_SESSION_IDLE": "120", **more}  # fmt: skip

    def gateway(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gateway", *args], env=self.env(**env), cwd=self.workspace,
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    def one_shot(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``gateway ARGS`` with no session, in this process: what a one-shot run prints."""
        return run_here(args, env=self.env(GATEWAY_SESSION="off"), cwd=self.workspace)

    def starts(self) -> int:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return sum(json.loads(line)["type"] == "initialize" for line in lines)

    @property
    def run(self) -> Path:
        return self.home / "run"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Home]:
    made = Home(tmp_path_factory.mktemp("session"))
    source = made.root / "src" / "echo"
    source.mkdir(parents=True)
    config = made.root / "echo-config.json"
    config.write_text(json.dumps({"log": str(made.log), "tools": ["echo_tool"],
                                  "commands": ["hello"], "events": ["tool_call"]}))  # fmt: skip
    command = [sys.executable, str(FIXTURES / "scripted_extension.py"), str(config)]
    (source / "extension.json").write_text(json.dumps({"name": "echo", "command": command}))
    report = install(made.home, str(source), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(made.home) as store:
        store.set_trusted(report.package.record.id, True)
        store.set_enabled(report.package.record.id, True)
    yield made
    made.gateway("session", "stop", "--all")


def _same(text: str) -> str:
    """Output with what differs between any two runs (session ids) blanked."""
    return re.sub(r'"session_id": "[^"]*"', '"session_id": "…"', text)


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "--json"),
        ("call", "echo_tool", '{"do": "echo", "text": "hi"}'),
        ("call", "echo_tool", '{"do": "effects"}', "--json"),
        ("call", "echo_tool", '{"do": "error"}'),
        ("call", "no_such_tool", "{}"),
        ("call", "echo_tool", "not json"),
        ("command", "hello", "a", "b"),
        ("command", "/nope"),
    ],
    ids=lambda args: " ".join(args)[:40],
)
def test_a_command_prints_what_it_prints_one_shot(home: Home, args: tuple[str, ...]):
    warm = home.gateway(*args)
    alone = home.one_shot(*args)
    assert (warm.returncode, _same(warm.stdout), warm.stderr) == (
        alone.returncode,
        _same(alone.stdout),
        alone.stderr,
    )


def test_commands_reuse_the_session_and_its_processes(home: Home):
    home.gateway("call", "echo_tool", '{"do": "echo"}')
    before = home.starts()
    for _ in range(3):
        assert home.gateway("call", "echo_tool", '{"do": "echo"}').returncode == 0
    assert home.starts() == before  # started once, by the session
    status = json.loads(home.gateway("session", "status", "--json").stdout)
    [session] = [s for s in status["sessions"] if s.get("workspace") == str(home.workspace)]
    assert session["served"] >= 3 and session["processes"] == ["echo"]


def test_what_other_commands_change_is_seen_at_once(home: Home):
    # The other commands run in this process (one_shot): the session is another process
    # either way, and sees what they wrote to the store.
    assert home.one_shot("disable", "echo").returncode == 0
    gone = home.gateway("call", "echo_tool", "{}")
    assert gone.returncode == 1 and "unknown tool 'echo_tool'" in gone.stderr
    assert home.one_shot("enable", "echo").returncode == 0
    assert home.gateway("call", "echo_tool", '{"do": "echo"}').returncode == 0
    before = home.starts()
    settings = home.home / "config" / "echo.json"
    settings.write_text(json.dumps({"level": 2}))
    assert home.gateway("call", "echo_tool", '{"do": "echo"}').returncode == 0
    assert home.starts() == before + 1  # started again with its new settings
    settings.unlink()


def test_the_socket_is_private_to_the_user(home: Home):
    home.gateway("list")
    [sock] = home.run.glob("*.sock")
    assert (home.run.stat().st_mode & 0o777, sock.stat().st_mode & 0o777) == (0o700, 0o600)


def test_a_run_folder_others_may_enter_is_refused_and_the_command_runs_one_shot(home: Home):
    home.gateway("session", "stop", "--all")
    home.run.chmod(0o755)
    try:
        done = home.gateway("call", "echo_tool", '{"do": "echo"}', "--json")
    finally:
        home.run.chmod(0o700)
    assert done.returncode == 0
    codes = [d["code"] for d in json.loads(done.stdout)["diagnostics"]]
    assert "cli.session_unreachable" in codes
    assert not list(home.run.glob("*.sock"))


def test_a_stale_socket_is_cleaned_and_a_new_session_starts(home: Home):
    home.gateway("session", "stop", "--all")
    stale = home.run / ("0" * 32 + ".sock")
    with socket.socket(socket.AF_UNIX) as left:
        left.bind(str(stale))  # a socket file no process listens on
    (home.run / ("0" * 32 + ".lock")).touch()
    home.gateway("session", "status")
    assert not stale.exists()
    assert home.gateway("call", "echo_tool", '{"do": "echo"}').returncode == 0


def test_off_a_terminal_no_session_starts_unless_asked(home: Home):
    home.gateway("session", "stop", "--all")
    env = {k: v for k, v in home.env().items() if k != "GATEWAY_SESSION"}
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "list"], env=env, cwd=home.workspace,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert not list(home.run.glob("*.sock"))


def test_an_idle_session_ends_by_itself(home: Home):
    home.gateway("session", "stop", "--all")
    assert home.gateway("list", GATEWAY_SESSION_IDLE="0.5").returncode == 0
    [lock] = home.run.glob("*.lock")
    assert wait_gone(SessionPlace(home.run, lock.stem), 60)


def test_a_package_that_exited_is_started_afresh_by_the_next_command(home: Home):
    home.gateway("call", "echo_tool", '{"do": "echo"}')
    crashed = home.gateway("call", "echo_tool", '{"do": "crash"}')
    assert crashed.returncode == 1
    before = home.starts()
    assert home.gateway("call", "echo_tool", '{"do": "echo"}').returncode == 0
    assert home.starts() == before + 1


@pytest.mark.anyio
async def test_a_connection_from_another_user_is_closed_unanswered(tmp_path: Path, monkeypatch):
    import anyio

    from gateway import GatewayConfig
    from gateway.cli import _session_server as server
    from gateway.cli._session_run import Holder

    monkeypatch.setattr(server, "peer_uid", lambda sock: os.getuid() + 1)
    place = SessionPlace(tmp_path, "k")
    holder = Holder(tmp_path, False, False, GatewayConfig(home=tmp_path / "home"), print)
    session = server.Session(place, holder, 60.0)
    ours, theirs = socket.socketpair()
    with theirs:
        theirs.sendall(b'{"kind": "status"}\n')
        await session._connection(await anyio.abc.SocketStream.from_socket(ours))
        try:
            answer = theirs.recv(100)
        except ConnectionResetError:  # closed with the request unread
            answer = b""
        assert answer == b""


def test_package_text_reaches_the_terminal_escaped_and_json_keeps_it_exact(home: Home):
    hostile = '{"do": "say", "text": "\\u001b]52;c;aGk=\\u0007 \\u001b[31mred"}'
    shown = home.gateway("call", "echo_tool", hostile)
    assert shown.returncode == 0
    assert "\x1b" not in shown.stdout and "\\x1b]52;c;aGk=\\x07 \\x1b[31mred" in shown.stdout
    exact = json.loads(home.gateway("call", "echo_tool", hostile, "--json").stdout)
    assert exact["content"] == "\x1b]52;c;aGk=\x07 \x1b[31mred"


def test_diagnostics_go_to_the_stderr_of_the_command_that_says_them() -> None:
    """A warm session gives each command its own ``sys.stderr``: the diagnostics a call
    prints after its result (its package's warnings, ``-v``'s of the others) reach that
    command, not the session's log (the default was the stderr of the module's import)."""
    from gateway.base import Diagnostic, Severity
    from gateway.cli._output import print_diagnostics

    said = Diagnostic("runtime.unavailable", Severity.WARNING, "a warning", package="p")
    streams = sys.stderr
    sys.stderr = command = io.StringIO()
    try:
        print_diagnostics([said])
    finally:
        sys.stderr = streams
    assert command.getvalue() == "warning: a warning [runtime.unavailable]\n"
