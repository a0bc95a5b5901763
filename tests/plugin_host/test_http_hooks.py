"""Claude Code ``http`` hooks (adapters.plugin_host._http_hooks) against a real HTTP server on
this machine's loopback: the event POSTed as JSON, the answer read as a command hook's
output, failures non-blocking, the body bounded, the grant checked."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._command_hooks import CommandHooks
from adapters.plugin_host._hook_config import HOOK_KINDS, read_hooks
from adapters.plugin_host._hook_process import OUTPUT_LIMIT
from gateway.sandbox import EGRESS_HOST, EGRESS_PORT
from tests._loopback import loopback_http

pytestmark = pytest.mark.anyio

CALL = {"tool": "Bash", "arguments": {"command": "rm -rf /"}}
DENY = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                               "permissionDecisionReason": "policy says no"}}  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    answers: dict[str, tuple[int, bytes]] = {
        "/allow": (200, b""),
        "/deny": (200, json.dumps(DENY).encode()),
        "/context": (200, b"Policy: be careful."),
        "/malformed": (200, b'{"decision": "block", "reason": '),
        "/big": (200, b"x" * (OUTPUT_LIMIT + 10)),
        "/error": (500, b'{"decision": "block"}'),
        "/redirect": (302, b""),
    }
    seen: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.seen.append(
            {"path": self.path, "body": json.loads(body), "headers": dict(self.headers)}
        )
        if self.path == "/slow":
            time.sleep(10)
        status, answer = self.answers.get(self.path, (200, b""))
        self.send_response(status)
        if status == 302:
            self.send_header("Location", "/deny")
        self.send_header("Content-Length", str(len(answer)))
        try:
            self.end_headers()
            self.wfile.write(answer)
        except BrokenPipeError:  # /slow: the hook's client gave up first, as it should
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    _Handler.seen = []
    with loopback_http(_Handler) as port:
        yield f"http://127.0.0.1:{port}"


def _hooks(tmp_path: Path, event: str, hook: dict[str, Any], **env: str) -> CommandHooks:
    return CommandHooks.from_config(
        {"hooks": {event: [{"matcher": "Bash", "hooks": [{"type": "http", **hook}]}]}},
        root=str(tmp_path), data_dir=str(tmp_path), env=env, kinds=HOOK_KINDS, package="guard",
    )  # fmt: skip


def _codes_of(hooks: CommandHooks) -> list[str]:
    return [d["code"] for d in hooks.diagnostics]


async def test_the_event_is_posted_as_json_and_an_empty_2xx_allows(
    tmp_path: Path, server: str
) -> None:
    hooks = _hooks(tmp_path, "PreToolUse", {"url": f"{server}/allow"})
    assert await hooks.dispatch("tool_call", CALL) == {}
    [request] = _Handler.seen
    assert request["body"]["hook_event_name"] == "PreToolUse"
    assert request["body"]["tool_name"] == "Bash"
    assert request["body"]["tool_input"] == {"command": "rm -rf /"}
    assert request["headers"]["Content-Type"] == "application/json"
    assert hooks.diagnostics == []


async def test_a_json_deny_blocks_the_call(tmp_path: Path, server: str) -> None:
    hooks = _hooks(tmp_path, "PreToolUse", {"url": f"{server}/deny"})
    assert await hooks.dispatch("tool_call", CALL) == {"allow": False, "reason": "policy says no"}


async def test_plain_text_is_context_where_plain_stdout_is(tmp_path: Path, server: str) -> None:
    hooks = _hooks(tmp_path, "UserPromptSubmit", {"url": f"{server}/context"})
    reply = await hooks.dispatch("input", {"text": "fix it"})
    assert reply == {"text": "fix it\n\nPolicy: be careful.", "action": "transform"}


async def test_headers_fill_only_the_variables_allowed_env_vars_lists(
    tmp_path: Path, server: str
) -> None:
    hook = {"url": f"{server}/allow", "allowedEnvVars": ["TOKEN"],
            "headers": {"Authorization": "Bearer $TOKEN", "X-Other": "[${OTHER}]"}}  # fmt: skip
    hooks = _hooks(tmp_path, "PreToolUse", hook, TOKEN="t0k", OTHER="leak")
    await hooks.dispatch("tool_call", CALL)
    [request] = _Handler.seen
    assert request["headers"]["Authorization"] == "Bearer t0k"
    assert request["headers"]["X-Other"] == "[]"


async def test_a_plugin_option_in_a_header_is_filled(tmp_path: Path, server: str) -> None:
    """``${user_config.token}`` reaches the host as ``${CLAUDE_PLUGIN_OPTION_TOKEN}``."""
    hook = {"url": f"{server}/allow",
            "headers": {"Authorization": "Bearer ${CLAUDE_PLUGIN_OPTION_TOKEN}"}}  # fmt: skip
    hooks = _hooks(tmp_path, "PreToolUse", hook, CLAUDE_PLUGIN_OPTION_TOKEN="opt")
    await hooks.dispatch("tool_call", CALL)
    assert _Handler.seen[0]["headers"]["Authorization"] == "Bearer opt"


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/malformed", "not valid JSON"),
        ("/big", f"more than {OUTPUT_LIMIT} bytes"),
        ("/error", "answered HTTP 500"),
        ("/redirect", "answered HTTP 302"),
    ],
)
async def test_a_bad_answer_fails_the_hook_and_the_call_goes_on(
    tmp_path: Path, server: str, path: str, said: str
) -> None:
    hooks = _hooks(tmp_path, "PreToolUse", {"url": f"{server}{path}"})
    assert await hooks.dispatch("tool_call", CALL) == {}
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_FAILED.code]
    assert said in hooks.diagnostics[0]["message"]
    assert [r["path"] for r in _Handler.seen] == [path]  # a redirect is not followed


async def test_a_hook_that_outlives_its_timeout_fails_open(tmp_path: Path, server: str) -> None:
    hooks = _hooks(tmp_path, "PreToolUse", {"url": f"{server}/slow", "timeout": 0.5})
    assert await hooks.dispatch("tool_call", CALL) == {}  # the server answers after 10 s
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_FAILED.code]
    assert "timed out after 0.5 s" in hooks.diagnostics[0]["message"]


async def test_an_ungranted_destination_is_not_sent_and_names_the_grant(
    tmp_path: Path, server: str
) -> None:
    """Confined by destination grants (the egress proxy in the variables) without this one:
    a loopback host the proxy is not asked for would reach the namespace's own loopback."""
    proxy = f"http://{EGRESS_HOST}:{EGRESS_PORT}"
    hooks = _hooks(tmp_path, "PreToolUse", {"url": f"{server}/deny"},
                   HTTP_PROXY=proxy, NO_PROXY="localhost,127.0.0.1,::1")  # fmt: skip
    assert await hooks.dispatch("tool_call", CALL) == {}
    assert await hooks.dispatch("tool_call", CALL) == {}  # said once: it stays so
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_HTTP_NOT_GRANTED.code]
    grant = f"network:127.0.0.1:{server.rsplit(':', 1)[1]}"
    assert f"`gateway permissions guard {grant}`" in hooks.diagnostics[0]["message"]
    assert _Handler.seen == []


def test_http_hooks_are_read_only_where_the_format_has_them() -> None:
    data = {"hooks": {"PreToolUse": [{"hooks": [{"type": "http", "url": "https://x.test/h"}]}]}}
    assert read_hooks(data, HOOK_KINDS)[0] and not read_hooks(data, HOOK_KINDS)[1]
    found, problems = read_hooks(data)
    assert found == [] and [p.code for p in problems] == [codes.CLAUDE_HOOK_TYPE_UNSUPPORTED.code]


@pytest.mark.parametrize(
    "hook",
    [
        {"url": "http://example.com/hook"},  # plain HTTP off loopback
        {"url": "https://user:pw@example.com/hook"},
        {"url": "https://example.com/hook", "headers": {"X": "a\nb"}},
        {"url": "https://example.com/hook", "allowedEnvVars": ["$TOKEN"]},
        {},
    ],
)
def test_a_malformed_http_hook_is_invalid_and_skipped(hook: dict[str, Any]) -> None:
    data = {"hooks": {"PreToolUse": [{"hooks": [{"type": "http", **hook}]}]}}
    found, problems = read_hooks(data, HOOK_KINDS)
    assert found == [] and [p.code for p in problems] == ["claude.hooks_invalid"]


async def test_the_egress_proxys_refusal_is_an_ungranted_destination(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway's egress proxy (its real code, here on a free port) refuses the CONNECT
    to a host the package is not granted: that is the grant to give, not a failure."""
    url = "https://policy.example.test/hook"
    import anyio

    import gateway.sandbox
    from gateway.sandbox import Destination
    from gateway.sandbox.egress import Denial, Grant, UpstreamConfig, handle_client

    denials: list[Denial] = []
    grant = Grant("guard", (Destination("other.example.test", 443),))
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(anyio.abc.SocketAttribute.local_port)

    async def serve(client: Any) -> None:
        await handle_client(client, grant, denials.append, UpstreamConfig(), _no_dns)

    monkeypatch.setattr(gateway.sandbox, "EGRESS_PORT", port)
    proxy = f"http://127.0.0.1:{port}"
    hooks = _hooks(tmp_path, "PreToolUse", {"url": url},
                   HTTP_PROXY=proxy, HTTPS_PROXY=proxy, NO_PROXY="localhost")  # fmt: skip
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, serve)
        assert await hooks.dispatch("tool_call", CALL) == {}
        group.cancel_scope.cancel()
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_HTTP_NOT_GRANTED.code]
    grant_text = "`gateway permissions guard network:policy.example.test:443`"
    assert grant_text in hooks.diagnostics[0]["message"]
    assert [(d.host, d.port) for d in denials] == [("policy.example.test", 443)]


async def _no_dns(host: str, port: int) -> list[str]:
    raise AssertionError(f"the proxy resolved {host}: it must refuse before")
