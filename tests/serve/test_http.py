"""``gateway serve --mcp --http``: a real server process on a free port, two nimlet packages
and tokens scoped to each, reached with the MCP SDK's own streamable HTTP client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from gateway.sandbox import package_dirs
from tests._cli import run_gateway, run_here
from tests._session_recorder import install_session_recorder, recorded
from tests.adapters._helpers import write_tree
from tests.serve._helpers import GATEWAY, MCP_TIMEOUT, install_ready, terminate

pytestmark = pytest.mark.anyio

# A nimlet extension with one tool, NAME_echo, that appends each call to CALLS.
EXTENSION = """#!@PYTHON@
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
send({"type": "register", "tools": [{"name": "@NAME@_echo", "description": "echo",
      "input_schema": {"type": "object"}}, {"name": "@NAME@_ask", "description": "ask",
      "input_schema": {"type": "object"}}], "commands": [], "events": []})
asked = {}
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "shutdown":
        break
    if message.get("type") == "tool" and message["name"] == "@NAME@_ask":
        asked["q" + message["id"]] = message["id"]
        send({"type": "ui_request", "id": "q" + message["id"], "method": "confirm",
              "prompt": "Really?"})
    elif message.get("type") == "ui_response":
        answer = "yes" if message.get("confirmed") else "no"
        send({"type": "response", "id": asked.pop(message["id"]), "content": answer})
    elif message.get("type") == "tool":
        with open(@CALLS@, "a") as handle:
            handle.write("@NAME@\\n")
        send({"type": "response", "id": message["id"],
              "content": "@NAME@ " + json.dumps(message.get("arguments") or {})})
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Server:
    home: Path
    url: str
    tokens: dict[str, str]
    env: dict[str, str]

    def gateway(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``gateway ARGS`` against the served home: in this process outside an event loop
        (``tests._cli.run_gateway``), else ``python -m gateway``."""
        return run_gateway(args, env=self.env, cwd=self.home.parent)

    def ran(self, package: str) -> int:
        """How many calls the package's extension received."""
        calls = package_dirs(self.home, package)[0] / "calls.txt"
        return len(calls.read_text().split()) if calls.exists() else 0


def _package(root: Path, name: str, calls: Path) -> Path:
    script = (
        EXTENSION.replace("@PYTHON@", sys.executable)
        .replace("@NAME@", name)
        .replace("@CALLS@", repr(str(calls)))
    )
    write_tree(root, {"extension.json": {"name": name, "command": ["./ext.py"]}, "ext.py": script})
    (root / "ext.py").chmod(0o755)
    return root


def _env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "GATEWAY_NODE")}
    env.update(GATEWAY_HOME=str(base / "home"), HOME=str(base))
    return env


def _start(
    env: dict[str, str], workspace: Path, errors: Path, *extra: str, address: str = "127.0.0.1:0"
) -> tuple[subprocess.Popen[bytes], str]:
    with errors.open("wb") as sink:
        process = subprocess.Popen(
            [*GATEWAY, "serve", "--mcp", "--http", address, "--workspace", str(workspace),
             *extra],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink,
        )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in errors.read_text().splitlines():
            if line.startswith("gateway serve: MCP on "):
                url = line.removeprefix("gateway serve: MCP on ").strip()
                base = url.removesuffix("/mcp")
                while time.monotonic() < deadline:
                    if httpx2.get(f"{base}/readyz").status_code == 200:
                        return process, url
                    time.sleep(0.1)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise AssertionError(f"the server did not start: {errors.read_text()}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("http")
    env, home = _env(base), base / "home"
    (base / "workspace").mkdir()
    for name in ("alpha", "beta"):
        # Where the confined extension may write: its data folder in this home.
        calls = package_dirs(home, name)[0] / "calls.txt"
        install_ready(home, _package(base / name, name, calls))
    tokens = {}
    for name, scope in (("a", ["alpha"]), ("b", ["beta"]), ("gone", [])):
        args = ["token", "create", name, "--json"]
        for package in scope:
            args += ["--package", package]
        made = run_here(args, env=env, cwd=base)
        assert made.returncode == 0, made.stderr
        tokens[name] = json.loads(made.stdout)["token"]
    process, url = _start(env, base / "workspace", base / "stderr.log")
    yield Server(home, url, tokens, env)
    terminate(process)


@asynccontextmanager
async def client(
    server: Server, token: str, *, modern: bool = False, **options: Any
) -> AsyncIterator[ClientSession]:
    """The handshake, or with ``modern`` the stateless 2026-07-28 revision."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=MCP_TIMEOUT) as http,
        streamable_http_client(server.url, http_client=http) as (read, write),
        ClientSession(read, write, **options) as session,
    ):
        await (session.discover() if modern else session.initialize())
        yield session


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def test_each_token_sees_only_its_packages_tools_at_once(server: Server) -> None:
    seen: dict[str, set[str]] = {}

    async def listing(name: str) -> None:
        async with client(server, server.tokens[name]) as session:
            seen[name] = {tool.name for tool in (await session.list_tools()).tools}

    async with anyio.create_task_group() as group:
        group.start_soon(listing, "a")
        group.start_soon(listing, "b")
    assert seen == {"a": {"alpha_echo", "alpha_ask"}, "b": {"beta_echo", "beta_ask"}}


async def test_each_token_calls_its_own_tools_at_once(server: Server) -> None:
    results: dict[str, list[str]] = {}

    async def call(name: str, tool: str) -> None:
        async with client(server, server.tokens[name]) as session:
            results[name] = texts(await session.call_tool(tool, {"n": 1}))

    async with anyio.create_task_group() as group:
        group.start_soon(call, "a", "alpha_echo")
        group.start_soon(call, "b", "beta_echo")
    assert results == {"a": ['alpha {"n": 1}'], "b": ['beta {"n": 1}']}


async def test_a_call_outside_the_tokens_scope_is_an_error_and_runs_nothing(
    server: Server,
) -> None:
    before = server.ran("beta")
    async with client(server, server.tokens["a"]) as session:
        with pytest.raises(Exception, match="Unknown tool: beta_echo"):
            await session.call_tool("beta_echo", {})
    assert server.ran("beta") == before


async def test_a_question_goes_to_the_client_whose_call_asked_it(server: Server) -> None:
    asked: dict[str, int] = {"a": 0, "b": 0}

    def answering(name: str, accept: bool) -> Any:
        async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            asked[name] += 1
            return types.ElicitResult(action="accept", content={"answer": accept})

        return answer

    async with (
        client(server, server.tokens["a"], elicitation_callback=answering("a", True)) as a,
        client(server, server.tokens["b"], elicitation_callback=answering("b", False)) as b,
    ):
        yes = texts(await a.call_tool("alpha_ask", {}))
        no = texts(await b.call_tool("beta_ask", {}))
    assert (yes, no, asked) == (["yes"], ["no"], {"a": 1, "b": 1})


async def test_a_question_to_a_client_that_cannot_answer_is_cancelled(server: Server) -> None:
    async with client(server, server.tokens["a"]) as session:
        assert texts(await session.call_tool("alpha_ask", {})) == ["no"]


async def test_a_2026_07_28_client_drives_a_tool_that_needs_its_input(server: Server) -> None:
    """A stateless request has no back channel: the tool's question is the call's
    InputRequiredResult, and the retry carrying the answer and the requestState gets the
    tool's result; another token's retry does not reach it."""

    async def never(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise AssertionError("a 2026-07-28 client is never sent an elicitation request")

    async with (
        client(server, server.tokens["a"], modern=True, elicitation_callback=never) as a,
        client(server, server.tokens["b"], modern=True, elicitation_callback=never) as b,
    ):
        first = await a.call_tool("alpha_ask", {}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult) and first.request_state
        ((key, asked),) = (first.input_requests or {}).items()
        assert isinstance(asked, types.ElicitRequest) and asked.params.message == "Really?"
        answer = {key: types.ElicitResult(action="accept", content={"answer": True})}
        with pytest.raises(MCPError, match="Unknown tool: alpha_ask"):  # b's scope is beta
            await b.call_tool(
                "alpha_ask", {}, input_responses=answer, request_state=first.request_state,
                allow_input_required=True,
            )  # fmt: skip
        done = await a.call_tool(
            "alpha_ask", {}, input_responses=answer, request_state=first.request_state,
            allow_input_required=True,
        )  # fmt: skip
        assert isinstance(done, types.CallToolResult) and texts(done) == ["yes"]
        declined = await a.call_tool("alpha_ask", {}, allow_input_required=True)
        assert isinstance(declined, types.InputRequiredResult)
        refused = {key: types.ElicitResult(action="decline")}
        done = await a.call_tool(
            "alpha_ask", {}, input_responses=refused, request_state=declined.request_state,
            allow_input_required=True,
        )  # fmt: skip
        assert isinstance(done, types.CallToolResult) and texts(done) == ["no"]


def _post(server: Server, token: str, body: dict[str, Any], session: str | None) -> Any:
    """One JSON-RPC request as a plain HTTP client sends it; the reply from JSON or SSE."""
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-06-18",
    }
    if session:
        headers["Mcp-Session-Id"] = session
    response = httpx2.post(server.url, headers=headers, json=body, timeout=30)
    assert response.status_code in (200, 202), response.text
    if "id" not in body:
        return response
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        replies = [json.loads(d) for d in data if d]
        return response, next(r for r in replies if r.get("id") == body["id"])
    return response, response.json()


async def test_a_plain_http_client_without_the_sdk_calls_its_tools(server: Server) -> None:
    token = server.tokens["b"]
    opened, hello = _post(
        server, token,
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "curl-like", "version": "1"}}},
        None,
    )  # fmt: skip
    session = opened.headers.get("mcp-session-id")
    assert hello["result"]["serverInfo"]["name"]
    _post(server, token, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    _, listed = _post(server, token, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    _, called = _post(
        server, token,
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "beta_echo", "arguments": {"plain": True}}},
        session,
    )  # fmt: skip
    assert {tool["name"] for tool in listed["result"]["tools"]} == {"beta_echo", "beta_ask"}
    assert called["result"]["content"] == [{"type": "text", "text": 'beta {"plain": true}'}]


async def test_a_token_past_its_rate_is_refused_and_nothing_runs(
    server: Server, tmp_path: Path
) -> None:
    (tmp_path / "workspace").mkdir()
    process, url = _start(
        server.env, tmp_path / "workspace", tmp_path / "stderr.log", "--rate", "2"
    )
    try:
        limited = Server(server.home, url, server.tokens, server.env)
        before = server.ran("alpha")
        async with client(limited, server.tokens["a"]) as session:
            await session.call_tool("alpha_echo", {})
            await session.call_tool("alpha_echo", {})
            with pytest.raises(Exception, match="at most 2 a minute"):
                await session.call_tool("alpha_echo", {})
        assert server.ran("alpha") == before + 2
    finally:
        terminate(process)


async def test_no_token_is_refused_with_401_and_a_bearer_challenge(server: Server) -> None:
    response = httpx2.post(server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer ")


async def test_a_wrong_token_is_refused_with_401(server: Server) -> None:
    headers = {"Authorization": "Bearer gw_not-a-token"}
    response = httpx2.post(server.url, headers=headers, json={})
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


async def _connects(server: Server, token: str) -> None:
    async with client(server, token):
        pass


def test_a_revoked_token_is_refused_with_401_at_its_next_request(server: Server) -> None:
    # Not an async test: `gateway token revoke` runs in this process (tests/_cli.run_here
    # needs a thread without an event loop); the client, in an event loop of its own.
    anyio.run(_connects, server, server.tokens["gone"], backend="asyncio")  # it worked before
    assert server.gateway("token", "revoke", "gone").returncode == 0
    headers = {"Authorization": f"Bearer {server.tokens['gone']}"}
    assert httpx2.post(server.url, headers=headers, json={}).status_code == 401


async def test_health_and_readiness_need_no_token(server: Server) -> None:
    base = server.url.removesuffix("/mcp")
    assert httpx2.get(f"{base}/healthz").status_code == 200
    assert httpx2.get(f"{base}/readyz").json() == {"ready": True}


async def test_the_audit_log_names_token_tool_package_outcome_and_never_the_arguments(
    server: Server,
) -> None:
    async with client(server, server.tokens["b"]) as session:
        await session.call_tool("beta_echo", {"secret": "s3cr3t-value"})
    log = server.home / "logs" / "audit.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    expected = {"v": 1, "auth": "token", "token": "b", "method": "tools/call",
                "tool": "beta_echo", "package": "beta", "ecosystem": "nimlet", "outcome": "ok"}  # fmt: skip
    assert expected.items() <= lines[-1].items()
    assert lines[-1]["session"] and lines[-1]["protocol"]
    assert "arguments" not in lines[-1] and "result" not in lines[-1]
    assert "s3cr3t-value" not in log.read_text()


async def test_the_audit_log_says_refused_for_a_call_outside_the_tokens_scope(
    server: Server,
) -> None:
    async with client(server, server.tokens["a"]) as session:
        with pytest.raises(Exception, match="Unknown tool"):
            await session.call_tool("beta_echo", {})
    last = json.loads((server.home / "logs" / "audit.jsonl").read_text().splitlines()[-1])
    assert (last["token"], last["tool"], last["outcome"], last["package"]) == (
        "a", "beta_echo", "refused", None,
    )  # fmt: skip


async def _call(server: Server, token: str, tool: str) -> None:
    async with client(server, token) as session:
        await session.call_tool(tool, {})


def test_gateway_logs_server_reads_the_audit_log(server: Server) -> None:
    # Not an async test: `gateway logs` runs in this process (as the revoke test's CLI).
    anyio.run(_call, server, server.tokens["b"], "beta_echo", backend="asyncio")
    shown = server.gateway("logs", "--server", "-n", "1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("\n") == 1
    assert "  b  beta_echo  beta (nimlet)  ok  " in shown.stdout
    raw = server.gateway("logs", "--server", "-n", "1", "--json")
    assert json.loads(raw.stdout)["tool"] == "beta_echo"
    assert server.gateway("logs").returncode == 2  # neither an ID nor --server


def test_token_list_never_shows_a_token_or_its_hash(server: Server) -> None:
    listed = server.gateway("token", "list", "--json")
    assert "gw_" not in listed.stdout
    assert "sha256" not in listed.stdout
    names = {token["name"]: token["packages"] for token in json.loads(listed.stdout)["tokens"]}
    assert names["a"] == ["alpha"]


def test_sigterm_ends_the_session_for_the_packages_then_stops_with_status_0(
    tmp_path: Path,
) -> None:
    (tmp_path / "workspace").mkdir()
    env, errors = _env(tmp_path), tmp_path / "stderr.log"
    events = install_session_recorder(tmp_path / "home", tmp_path)
    process, _ = _start(env, tmp_path / "workspace", errors)
    while "session_start" not in recorded(events):  # warm
        assert process.poll() is None, errors.read_text()
        time.sleep(0.05)
    assert terminate(process, 15) == 0
    assert "Traceback" not in errors.read_text()
    # The session's end reached the package and its answer the gateway, then it was shut
    # down. (A server cancelled from outside had lost its runtimes' readers: the answer
    # went unread, and the request was cancelled once the 5 s bound ran out.)
    assert recorded(events) == ["initialize", "session_start", "session_end", "shutdown"]


def test_an_address_in_use_stops_the_server_with_its_code(server: Server) -> None:
    port = server.url.removesuffix("/mcp").rpartition(":")[2]
    refused = server.gateway("serve", "--mcp", "--http", f"127.0.0.1:{port}")
    assert refused.returncode == 1
    assert "[serve.http_address]" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_http_without_mcp_is_a_usage_error(server: Server) -> None:
    refused = server.gateway("serve", "--nimlet", "--http", "0")
    assert refused.returncode == 2
