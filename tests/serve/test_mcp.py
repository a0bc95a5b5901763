"""``gateway serve --mcp`` with the MCP Python SDK's own client (``ClientSession``) against a
served gateway: a Pi package, a nanobot package and a nimlet extension in one server.

The protocol tests serve it in this process (``tests/serve/_here.serve_here``: the CLI's
options, the product's ``serve_mcp``, every message framed as its JSON line; the packages
real child processes), one server per set of arguments for the tests that only read or make
calls whose outcome is their own (``everything``, ``pi``, ``nimlet``, ``modern_nimlet``);
a test that needs a home or a client of its own serves its own, here too (the gates' test
reads the lines the server wrote). A served process over stdio stays where the test is about
the process or its pipes: the SDK's ``stdio_client`` against the example workspace (the
stdio contract), an exit status (the unknown package). Raw JSON lines on a real stdin:
test_client_gone.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from tests.serve._helpers import GATEWAY, IDS, Served, need_sidecar, served_home
from tests.serve._here import serve_here

pytestmark = [pytest.mark.anyio, pytest.mark.slow(2)]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # the MCP client's stdio transport; the server side is anyio throughout


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    need_sidecar()
    return served_home(tmp_path_factory.mktemp("mcp"))


@asynccontextmanager
async def client(served: Served, *args: str, modern: bool = False, **session: Any):
    """A connected SDK client of ``gateway serve --mcp --workspace W ARGS`` served in this
    process: the initialize handshake, or with ``modern`` the stateless 2026-07-28 revision
    (``server/discover``, a version on every request)."""
    async with serve_here(
        ["--workspace", str(served.workspace), *args], env=served.env(), cwd=served.workspace,
        errlog=served.home.parent / "server-stderr.log", modern=modern, **session,
    ) as connection:  # fmt: skip
        yield connection


def all_packages() -> list[str]:
    args = []
    for package in IDS.values():
        args += ["--package", package]
    return args


# One served gateway per set of arguments for the tests that only list, read or make calls
# whose outcome depends on their own input alone (the fixture packages keep no state a call
# changes): each test's assertions are about its own requests. A test that changes what the
# server offers (a late tool), or needs a client of its own (elicitation), serves its own.
@pytest.fixture(scope="module")
async def everything(served: Served) -> AsyncIterator[ClientSession]:
    async with client(served, *all_packages()) as connection:
        yield connection


@pytest.fixture(scope="module")
async def pi(served: Served) -> AsyncIterator[ClientSession]:
    async with client(served, "--package", IDS["pi"]) as connection:
        yield connection


@pytest.fixture(scope="module")
async def nimlet(served: Served) -> AsyncIterator[ClientSession]:
    async with client(served, "--package", IDS["nimlet"]) as connection:
        yield connection


@pytest.fixture(scope="module")
async def modern_nimlet(served: Served) -> AsyncIterator[ClientSession]:
    async with client(served, "--package", IDS["nimlet"], modern=True) as connection:
        yield connection


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def test_one_server_lists_the_tools_of_a_pi_a_nanobot_and_a_nimlet_package(everything):
    tools = {tool.name: tool for tool in (await everything.list_tools()).tools}
    assert {"open_ticket", "wait_for_abort", "review_code", "save_note", "sleepy"} <= set(tools)
    assert tools["save_note"].input_schema["required"] == ["text"]
    assert tools["save_note"].annotations.read_only_hint is True
    assert tools["review_code"].input_schema["properties"] == {"path": {"type": "string"}}
    assert tools["open_ticket"].meta["extension-gateway/owner"] == "pi-tickets"


async def test_a_stateless_2026_07_28_client_lists_and_calls_without_a_handshake(modern_nimlet):
    connection = modern_nimlet
    assert connection.discover_result is not None
    assert "2026-07-28" in connection.discover_result.supported_versions
    tools = {tool.name for tool in (await connection.list_tools()).tools}
    saved = await connection.call_tool("save_note", {"text": "stateless"})
    assert "save_note" in tools and texts(saved) == ["saved: stateless"]


async def test_calls_reach_each_ecosystem_and_every_ecosystems_hooks_apply(everything):
    nimlet = await everything.call_tool("save_note", {"text": "key sk-live1234567"})
    nanobot = await everything.call_tool("review_code", {"path": "src/app.py"})
    pi = await everything.call_tool("open_ticket", {"title": "cache bug"})
    # The Pi package's tool_call hook redacted the nimlet tool's argument.
    assert texts(nimlet) == ["saved: key [redacted]"]
    # The nimlet extension's tool_result hook rewrote the nanobot tool's output.
    assert texts(nanobot) == ["Review requested for src/app.py [seen by desk]"]
    # The nanobot package's after_execute_tool hook stamped the Pi tool's result.
    # (Pi's text of a result with an image names the image; a rewritten result is text.)
    assert texts(pi) == ["ticket opened: cache bug\n[image image/png] (reviewer: acme.review)"]
    assert not nimlet.is_error and not nanobot.is_error and not pi.is_error


async def test_an_image_part_and_the_details_come_back_structured(pi):
    result = await pi.call_tool("open_ticket", {"title": "logo"})
    images = [block for block in result.content if isinstance(block, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert result.meta["extension-gateway/details"] == {"title": "logo", "number": 7}


async def test_an_output_schema_and_its_structured_result_reach_the_client(pi):
    tools = {tool.name: tool for tool in (await pi.list_tools()).tools}
    result = await pi.call_tool("ticket_stats", {})
    schema = tools["ticket_stats"].output_schema
    assert schema is not None and schema["properties"] == {"open": {"type": "number"}}
    assert tools["open_ticket"].output_schema is None
    assert result.structured_content == {"open": 3} and texts(result) == ["3 open"]


async def test_progress_of_a_call_reaches_the_client_that_asked_for_it(pi):
    seen: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, message))

    await pi.call_tool("open_ticket", {"title": "x"}, progress_callback=on_progress)
    assert [message for _, message in seen] == ["checking duplicates", "filing"]
    assert [progress for progress, _ in seen] == [1, 2]


async def test_a_cancelled_request_sends_the_extension_its_cancel(served, nimlet):
    def reached() -> bool:
        try:
            received = served.received()
        except ValueError:  # a line half written
            return False
        return any(m.get("type") == "tool" and m["name"] == "sleepy" for m in received)

    async with anyio.create_task_group() as group:
        group.start_soon(nimlet.call_tool, "sleepy", {})
        with anyio.fail_after(60):  # caps a hang: cancelled once the extension has it
            while not reached():
                await anyio.sleep(0.05)
        group.cancel_scope.cancel()
    # The server is still serving, and answers the next call.
    after = await nimlet.call_tool("save_note", {"text": "still here"})
    assert texts(after) == ["saved: still here"]
    received = served.received()
    call = next(m for m in received if m.get("type") == "tool" and m["name"] == "sleepy")
    assert {"type": "cancel", "id": call["id"]} in received


async def test_an_unknown_tool_is_a_protocol_error(nimlet):
    with pytest.raises(Exception, match="Unknown tool: nope"):
        await nimlet.call_tool("nope", {})


async def test_commands_and_prompt_templates_are_prompts(pi):
    prompts = {p.name: p for p in (await pi.list_prompts()).prompts}
    standup = await pi.get_prompt("standup", {"arguments": "the cache"})
    assert {"more-tools", "standup"} <= set(prompts)
    assert [a.name for a in prompts["standup"].arguments] == ["arguments"]
    assert [(m.role, m.content.text) for m in standup.messages] == [
        ("user", "Draft a three-line stand-up note about the cache.")
    ]


async def test_skills_are_resources_the_client_can_read(pi):
    resources = (await pi.list_resources()).resources
    triage = next(r for r in resources if r.name == "triage")
    read = await pi.read_resource(triage.uri)
    assert str(triage.uri) == "skill://triage/SKILL.md"
    assert triage.description == "Sort new tickets by severity before opening more."
    assert "label each `sev1`" in read.contents[0].text


async def test_a_tool_registered_after_start_is_announced_with_list_changed(served):
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            notified.set()

    async with client(served, "--package", IDS["pi"], message_handler=on_message) as connection:
        before = {t.name for t in (await connection.list_tools()).tools}
        await connection.get_prompt("more-tools", {})
        with anyio.fail_after(10):
            await notified.wait()
        after = {t.name for t in (await connection.list_tools()).tools}
        late = await connection.call_tool("late_tool", {})
    assert after - before == {"late_tool"}
    assert texts(late) == ["late and well"]


async def test_a_question_becomes_an_elicitation_form(served):
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"answer": True})

    async with client(
        served, "--package", IDS["nimlet"], elicitation_callback=answer
    ) as connection:
        reply = await connection.get_prompt("ask", {"arguments": "deploy"})
    assert asked == ["Really deploy?"]
    assert [m.content.text for m in reply.messages] == ["answer: yes"]


async def test_without_elicitation_a_question_is_answered_cancelled(nimlet):
    reply = await nimlet.get_prompt("ask", {"arguments": "deploy"})
    assert [m.content.text for m in reply.messages] == ["answer: no"]


def test_an_uninstalled_package_stops_the_server_with_a_diagnostic(served, tmp_path):
    import subprocess

    done = subprocess.run(
        [*GATEWAY, "serve", "--mcp", "--package", "no-such-package"],
        env=served.env(), cwd=served.workspace, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 1
    assert "serve.package_unknown" in done.stderr and done.stdout == ""


async def test_a_package_that_has_not_passed_its_gates_offers_nothing(tmp_path):
    # Served in this process (tests/serve/_here), the server's lines read as it wrote them:
    # the gate is the server's (raw JSON lines on a real stdin: test_client_gone.py).
    from gateway.store import StateStore

    need_sidecar()
    served = served_home(tmp_path, kinds=("nimlet",))
    with StateStore.open(served.home) as store:
        store.set_trusted(IDS["nimlet"], False)
    written: list[str] = []
    errlog = tmp_path / "server-stderr.log"
    async with serve_here(
        ["--package", IDS["nimlet"]], env=served.env(), cwd=served.workspace, errlog=errlog,
        written=written,
    ) as connection:  # fmt: skip
        listed = await connection.list_tools()
    assert listed.tools == []
    # The client's second request (initialize was id 1), answered as the line it was.
    assert json.loads(written[-1]) == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    stderr = errlog.read_text()
    assert "serve.package_inactive" in stderr and "not trusted" in stderr


async def test_the_example_workspace_as_one_mcp_server(served):
    from tests.serve._helpers import REPO

    examples = REPO / "examples"
    command, *rest = GATEWAY
    params = StdioServerParameters(
        command=command,
        args=[*rest, "serve", "--mcp", "--workspace", str(examples), "--trust"],
        env=served.env(), cwd=str(examples),
    )  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as connection:
        await connection.initialize()
        tools = {t.name for t in (await connection.list_tools()).tools}
        prompts = {p.name for p in (await connection.list_prompts()).prompts}
        skills = {r.name for r in (await connection.list_resources()).resources}
        counted = await connection.call_tool("wordcount", {"text": "one two three"})
    # nimlet extensions and a tool.json tool, the Pi extension the workspace discovers, the
    # nanobot package installed in the served home; prompt templates; a skill.
    assert {"save_note", "list_todos", "wordcount", "open_ticket", "review_code"} <= tools
    assert {"review", "note", "todos"} <= prompts
    assert skills >= {"release-notes"}
    assert "3" in texts(counted)[0]


async def test_a_2026_07_28_client_answers_a_question_through_input_required(served):
    """2026-07-28 has no server-initiated requests: the command's question comes back as an
    InputRequiredResult (an elicitation form and a requestState), and the client's retry
    with its answer resumes the same running command."""

    async def never(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("a 2026-07-28 client is never sent an elicitation request")

    async with client(
        served, "--package", IDS["nimlet"], modern=True, elicitation_callback=never
    ) as connection:
        first = await connection.get_prompt(
            "ask", {"arguments": "deploy"}, allow_input_required=True
        )
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        (key, asked) = next(iter((first.input_requests or {}).items()))
        assert isinstance(asked, types.ElicitRequest)
        assert asked.params.message == "Really deploy?"
        answer = types.ElicitResult(action="accept", content={"answer": True})
        reply = await connection.get_prompt(
            "ask",
            {"arguments": "deploy"},
            input_responses={key: answer},
            request_state=first.request_state,
            allow_input_required=True,
        )
        assert isinstance(reply, types.GetPromptResult)
        assert [m.content.text for m in reply.messages] == ["answer: yes"]
        with pytest.raises(MCPError, match="requestState names no call waiting"):
            await connection.get_prompt(  # good once
                "ask", {"arguments": "deploy"}, input_responses={key: answer},
                request_state=first.request_state, allow_input_required=True,
            )  # fmt: skip


async def test_a_2026_07_28_client_without_elicitation_has_the_question_cancelled(
    modern_nimlet,
):
    # Its requests declare no elicitation capability: the command runs on, answered cancelled.
    reply = await modern_nimlet.get_prompt("ask", {"arguments": "deploy"})
    assert [m.content.text for m in reply.messages] == ["answer: no"]
