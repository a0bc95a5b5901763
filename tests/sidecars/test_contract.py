"""The wire contract every runtime the gateway starts must honour, one test per rule, run
against every runtime in ``_runtimes.RUNTIMES`` over its real pipes with raw JSON lines.

The driver (``_wire.Wire``) also checks, in every test, that each line is a valid protocol
message, that ``register`` comes first (package code that prints while loading included)
and that each request is answered at most once, never after it was cancelled. The last
test goes through ``open_gateway``, where the gateway's own handling of a crash matters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from tests.conftest import Workspace

from ._runtimes import Runtime, cases
from ._wire import PLAIN_V1_TYPES, Wire, wait_until

pytestmark = pytest.mark.slow(3)  # measured long: scheduled first (tests/conftest.py)

EXIT_BOUND = 30.0
"""Seconds a runtime may take to end after ``shutdown`` or end of input: a cap on a hang, not
a measure (the gateway itself waits ``shutdown_grace``, 0.5 s, before it signals). Loose so a
machine starved of CPU does not fail the test, and half the minute a running ``slow`` call
would hold up a runtime that waits for its calls: that runtime still fails."""

CANCEL_BOUND = 30.0
"""Seconds for a cancel to reach a running call (it takes effect at once; this caps a hang,
and is half the minute after which ``slow`` ends on its own)."""

Start = Callable[..., Wire]


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Start]:
    """Start a runtime (negotiated unless ``negotiate=False``); killed at teardown."""
    wires: list[Wire] = []

    def launch(runtime: Runtime, *, negotiate: bool = True) -> Wire:
        scratch = tmp_path / f"run{len(wires)}"
        scratch.mkdir()
        wire = Wire(runtime.plan(scratch), runtime.features if negotiate else None)
        wires.append(wire)
        return wire

    yield launch
    for wire in wires:
        wire.kill()


def echo(runtime: Runtime, wire: Wire, request_id: str, text: str) -> None:
    reply = wire.call(request_id, *runtime.call("echo", {"text": text}))
    assert reply["content"] == text and not reply.get("is_error"), reply


def said(marker: Path, text: str) -> Callable[[], bool]:
    return lambda: marker.exists() and marker.read_text() == text


def start_slow(runtime: Runtime, wire: Wire, request_id: str, marker: Path) -> None:
    """A slow call, and only once it runs (its marker says so)."""
    wire.tool(request_id, *runtime.call("slow", {"marker": str(marker)}))
    assert wait_until(said(marker, "started")), "the slow call never started"


# ---------------------------------------------------------------------- stdout and load


NOISY_WAYS = ("print", "stream", "fd", "child")
"""How package code writes to stdout (``noisy``): the language's print, the stdout stream
object, file descriptor 1, a child process inheriting stdout."""


@pytest.mark.parametrize("runtime", cases("stdout", needs="noisy"))
def test_stdout_written_by_package_code_never_reaches_the_protocol(
    runtime: Runtime, start: Start
) -> None:
    """Each way in turn on one runtime, each call followed by an echo: a way that reached
    the protocol fails its call, the echo after it, or the driver's check of every line."""
    wire = start(runtime)
    for n, how in enumerate(NOISY_WAYS):
        reply = wire.call(f"{n}-noisy", *runtime.call("noisy", {"how": how}))
        assert reply["content"] == f"quiet {how}"
        echo(runtime, wire, f"{n}-after", "after")
    wire.shutdown()
    wire.finish()
    for how in NOISY_WAYS:
        assert f"noisy {how}" in wire.full_log()  # in the gateway's log, not lost


# ---------------------------------------------------------------------- concurrency, cancel


@pytest.mark.parametrize("runtime", cases("overlap", needs="slow"))
def test_a_running_call_does_not_hold_up_the_next(
    runtime: Runtime, start: Start, tmp_path: Path
) -> None:
    wire = start(runtime)
    wire.tool("slow", *runtime.call("slow", {"marker": str(tmp_path / "marker")}))
    echo(runtime, wire, "fast", "fast")  # within the reply bound, while `slow` runs a minute
    assert not wire.answered("slow")


@pytest.mark.parametrize("runtime", cases("cancel", needs="slow"))
def test_cancel_reaches_the_running_call_which_is_not_answered(
    runtime: Runtime, start: Start, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled"
    wire = start(runtime)
    start_slow(runtime, wire, "slow", marker)
    wire.cancel("slow")
    assert wait_until(said(marker, "cancelled"), CANCEL_BOUND), "the call never saw the cancel"
    echo(runtime, wire, "next", "next")
    wire.shutdown()
    wire.finish()  # a reply to "slow" anywhere in the output fails here


@pytest.mark.parametrize("runtime", cases("cancel_at_once", needs="slow"))
def test_cancel_right_behind_its_request_still_reaches_it(
    runtime: Runtime, start: Start, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled"
    wire = start(runtime)
    name, arguments = runtime.call("slow", {"marker": str(marker)})
    wire.write(_lines({"type": "tool", "id": "slow", "name": name, "arguments": arguments},
                      {"type": "cancel", "id": "slow"}))  # fmt: skip
    echo(runtime, wire, "next", "next")  # both lines were read: the call started, or never will
    if marker.exists():
        assert wait_until(said(marker, "cancelled"), CANCEL_BOUND), "the cancel was lost"
    wire.shutdown()
    wire.finish()  # a reply to "slow" anywhere in the output fails here


# ---------------------------------------------------------------------- shutdown


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "call-running"])
@pytest.mark.parametrize(
    ("runtime", "how"), cases("shutdown", needs="slow", variants=("shutdown", "eof"))
)
def test_shutdown_or_end_of_input_ends_the_process_promptly(
    runtime: Runtime, how: str, busy: bool, start: Start, tmp_path: Path
) -> None:
    wire = start(runtime)
    if busy:
        start_slow(runtime, wire, "slow", tmp_path / "marker")
    if how == "shutdown":
        wire.shutdown()  # stdin stays open: the message alone must end it
    else:
        wire.close_stdin()
    assert wire.finish(EXIT_BOUND) == 0


@pytest.mark.parametrize("runtime", cases("in_flight_at_shutdown"))
def test_a_request_in_flight_at_shutdown_is_still_answered(runtime: Runtime, start: Start) -> None:
    wire = start(runtime)
    name, arguments = runtime.call("echo", {"text": "last"})
    wire.write(_lines({"type": "tool", "id": "last", "name": name, "arguments": arguments},
                      {"type": "shutdown"}))  # fmt: skip
    assert wire.finish(EXIT_BOUND) == 0
    reply = wire.reply("last")
    assert reply["content"] == "last" or reply["is_error"] is True, reply


# ---------------------------------------------------------------------- crash


@pytest.mark.parametrize(
    ("runtime", "how"),
    [*cases("crash", needs="crash", variants=("alone",)),
     *cases("crash", needs="crash_child", variants=("leaving-a-child",))],
)  # fmt: skip
def test_a_crash_ends_its_output_and_the_process(runtime: Runtime, how: str, start: Start) -> None:
    wire = start(runtime)
    arguments = {"child": True} if how == "leaving-a-child" else {}
    wire.tool("crash", *runtime.call("crash", arguments))
    # End of output is how the gateway sees the exit: a child that inherited the protocol
    # pipe would hide it.
    assert wire.finish(EXIT_BOUND) != 0
    assert not wire.answered("crash")


# ---------------------------------------------------------------------- negotiation


@pytest.mark.parametrize("runtime", cases("plain_v1"))
def test_without_negotiation_it_speaks_plain_nimlet_v1(runtime: Runtime, start: Start) -> None:
    seen: dict[bool, list[dict[str, Any]]] = {}
    for negotiate in (True, False):
        wire = start(runtime, negotiate=negotiate)
        echo(runtime, wire, "1", "a")
        if "rich" in runtime.behaviours:
            wire.call("2", *runtime.call("rich", {}))
        wire.shutdown()
        wire.finish()
        seen[negotiate] = wire.messages
    # The control: negotiated, the same session does carry extras (where the runtime has any).
    assert any("gateway" in m for m in seen[True]) == runtime.uses_extras
    assert [m for m in seen[False] if "gateway" in m] == []
    assert {m["type"] for m in seen[False]} <= PLAIN_V1_TYPES


# ---------------------------------------------------------------------- unknown requests


@pytest.mark.parametrize("runtime", cases("unknown_requests"))
def test_requests_for_unknown_names_are_still_answered(runtime: Runtime, start: Start) -> None:
    wire = start(runtime)
    tool = wire.call("tool", "no_such_tool", {})
    assert tool["is_error"] is True, tool
    wire.command("command", "no_such_command", "with arguments")
    wire.reply("command")
    wire.event("event", "no_such_event", {})
    wire.reply("event")
    # A nimlet event it did not subscribe to is answered too.
    wire.event("turn", "turn_start", {"session_id": "s1", "workspace": "/nowhere"})
    wire.reply("turn")


@pytest.mark.parametrize("runtime", cases("unknown_messages"))
def test_messages_it_does_not_know_are_ignored_and_it_keeps_serving(
    runtime: Runtime, start: Start
) -> None:
    wire = start(runtime)
    wire.send({"type": "no_such_message", "id": "m1", "data": [1, 2]})
    wire.send({"type": "ui_response", "id": "nobody-asked", "answer": "", "cancelled": True})
    wire.send({"type": "cancel", "id": "no-such-request"})
    echo(runtime, wire, "1", "still here")
    wire.shutdown()
    wire.finish()  # a reply to any of them fails here (they were never asked)


# ---------------------------------------------------------------------- large messages


@pytest.mark.parametrize("runtime", cases("large", needs="big"))
def test_messages_larger_than_a_pipe_buffer_arrive_whole(runtime: Runtime, start: Start) -> None:
    wire = start(runtime)
    for index, size in enumerate((131_072, 4_000_000)):
        reply = wire.call(f"big{index}", *runtime.call("big", {"size": size}))
        assert reply["content"] == "x" * size
    echo(runtime, wire, "in", "y" * 1_000_000)


# ---------------------------------------------------------------------- through the gateway


@pytest.mark.anyio
@pytest.mark.parametrize("runtime", cases("crash_seen", needs="crash", gateway=True))
async def test_the_gateway_sees_a_crash_as_an_exit_and_restarts_a_planned_runtime(
    runtime: Runtime, workspace: Workspace
) -> None:
    assert runtime.prepare is not None
    runtime.prepare(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        tools = {t.name for t in gateway.tools()}
        commands = {c.name for c in gateway.registry.commands()}
        (first,) = gateway.processes
        crashed = await gateway.call_tool(*runtime.call("crash", {}))
        assert crashed.is_error and "exited unexpectedly" in crashed.content
        assert [d.code for d in gateway.diagnostics if d.code == "extension.exited"]
        if not runtime.restarts:
            return
        with anyio.fail_after(60):  # caps a hang: the backoff, then a sidecar's start
            while not gateway.processes or gateway.processes[0] is first:
                await anyio.sleep(0.05)
        assert {t.name for t in gateway.tools()} == tools
        assert {c.name for c in gateway.registry.commands()} == commands
        result = await gateway.call_tool(*runtime.call("echo", {"text": "back"}))
        assert result.content == "back"


def _lines(*messages: dict[str, Any]) -> bytes:
    return b"".join((json.dumps(m) + "\n").encode() for m in messages)
