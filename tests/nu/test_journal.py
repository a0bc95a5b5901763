"""At most once: an at_most_once call is journaled before it starts and marked done after;
after a gateway crash (kill -9 mid-call) it is never run again, it is reported as
indeterminate, and `gateway journal` lists it and lets the user resolve it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from gateway import open_gateway
from gateway.store import CallJournal, StateStore
from tests.nu._packages import (
    REPO,
    Recorder,
    cli,
    cli_json,
    codes,
    config_for,
    install_ready,
    probe_package,
    requires_runtime,
)

pytestmark = [requires_runtime, pytest.mark.anyio]

SEND = """
export default async (args) => {
  const response = await fetch(args.url, { method: "POST", body: JSON.stringify(args) });
  return { sent: (await response.json()).id };
};
"""


def package(tmp_path: Path) -> tuple[Path, str]:
    home = tmp_path / "home"
    source = probe_package(
        tmp_path / "pkg", {"send": SEND}, tool_yaml={"send": {"idempotency": "at_most_once"}}
    )
    return home, install_ready(home, source)


def journal(home: Path) -> list[dict]:
    with StateStore.open(home) as store:
        return [entry.to_dict() for entry in CallJournal(store).entries()]


async def test_a_finished_call_is_journaled_done(tmp_path: Path) -> None:
    home, _ = package(tmp_path)
    (tmp_path / "ws").mkdir()
    with Recorder() as server:
        async with open_gateway(
            tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
        ) as gateway:
            result = await gateway.call_tool("probe__send", {"url": server.url, "to": "bob"})
            session = gateway.session.id
    assert result.content == '{"sent":"m1"}'
    (entry,) = journal(home)
    assert (entry["state"], entry["outcome"], entry["tool"], entry["session_id"]) == (
        "done",
        "ok",
        "probe__send",
        session,
    )
    assert json.loads(entry["arguments"]) == {"url": server.url, "to": "bob"}


async def test_a_call_cut_short_while_the_gateway_runs_is_indeterminate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_NU_TOOL_TIMEOUT", "1")
    home, _ = package(tmp_path)
    (tmp_path / "ws").mkdir()
    with Recorder() as server:
        server.hold = True
        async with open_gateway(
            tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
        ) as gateway:
            first = await gateway.call_tool("probe__send", {"url": server.url})
            again = await gateway.call_tool("probe__send", {"url": server.url})
    assert first.content == "probe__send timed out after 1s"
    # The second call is refused, never sent; whether the first reached the server inside
    # its 1 s is the machine's load, and is why its outcome is indeterminate.
    assert again.error_code == "indeterminate" and len(server.requests) <= 1
    (entry,) = journal(home)
    assert (entry["state"], entry["outcome"]) == ("indeterminate", "interrupted")


async def test_kill_9_mid_call_never_runs_the_call_again_until_the_user_resolves_it(
    tmp_path: Path,
) -> None:
    home, package_id = package(tmp_path)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with Recorder() as server:
        server.hold = True  # the tool is mid-call until the test lets it go
        arguments = json.dumps({"url": server.url, "to": "bob"})
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
        errors = tmp_path / "driver.err"
        with errors.open("wb") as sink:
            driver = subprocess.Popen(
                [sys.executable, "-m", "tests.nu._crash_driver", str(home), str(workspace),
                 "probe__send", arguments],
                cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=sink,
            )  # fmt: skip
        try:
            arrived = await anyio.to_thread.run_sync(server.arrived.wait, 60)
            assert arrived, errors.read_text()
            (running,) = journal(home)
            assert running["state"] == "running"  # journaled before the process started
            os.kill(driver.pid, signal.SIGKILL)
            assert driver.wait(30) == -signal.SIGKILL
        finally:
            if driver.poll() is None:
                driver.kill()
            driver.wait()
            server.release.set()  # the orphaned tool process finishes and goes
        server.hold = False
        server.arrived.clear()

        # A new gateway: the call is reported indeterminate, and not run again.
        async with open_gateway(
            workspace, trust=True, config=config_for(home, tmp_path)
        ) as gateway:
            assert "journal.indeterminate" in codes(gateway)
            again = await gateway.call_tool("probe__send", json.loads(arguments))
            other = await gateway.call_tool("probe__send", {"url": server.url, "to": "eve"})
        assert again.is_error and again.error_code == "indeterminate"
        assert "gateway journal resolve" in again.content
        assert other.content == '{"sent":"m1"}'
        assert [json.loads(r["body"])["to"] for r in server.requests] == ["bob", "eve"]

        listed = cli_json(home, "journal")["calls"]
        assert [(c["package"], c["tool"], c["state"]) for c in listed] == [
            (package_id, "probe__send", "indeterminate")
        ]
        text = cli(home, "journal").stdout
        assert listed[0]["id"] in text and "gateway journal resolve CALL ran|not_run" in text
        resolved = cli_json(home, "journal", "resolve", listed[0]["id"], "ran")
        assert (resolved["state"], resolved["outcome"]) == ("resolved", "ran")
        assert cli_json(home, "journal")["calls"] == []

        # Resolved: the same call may run when the agent asks for it again.
        async with open_gateway(
            workspace, trust=True, config=config_for(home, tmp_path)
        ) as gateway:
            after = await gateway.call_tool("probe__send", json.loads(arguments))
        assert after.content == '{"sent":"m1"}' and len(server.requests) == 3


async def test_resolving_a_call_that_is_not_interrupted_is_refused(tmp_path: Path) -> None:
    home, _ = package(tmp_path)
    (tmp_path / "ws").mkdir()
    with Recorder() as server:
        async with open_gateway(
            tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
        ) as gateway:
            await gateway.call_tool("probe__send", {"url": server.url})
    (entry,) = journal(home)
    done = cli(home, "journal", "resolve", entry["id"], "not_run")
    assert done.returncode == 1 and "is done, not indeterminate" in done.stderr
    missing = cli(home, "journal", "resolve", "nope", "ran")
    assert missing.returncode == 1 and "no journaled call with id 'nope'" in missing.stderr
