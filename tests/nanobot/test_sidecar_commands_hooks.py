"""nanobot's command routing (exact, prefix, longest first) and hook factories on the
gateway's events, through a real sidecar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ._helpers import Sidecar, codes, write_package

COMMANDS = """
import json
from nanobot.bus.events import OutboundMessage

async def exact(ctx):
    return f"exact raw={ctx.raw!r} args={ctx.args!r}"

async def prefix(ctx):
    return OutboundMessage(channel=ctx.msg.channel, chat_id=ctx.msg.chat_id,
                           content=f"prefix args={ctx.args!r}")

async def longer(ctx):
    return {"message": f"longer args={ctx.args!r}", "prompt": f"Deploy to {ctx.args}"}

def sync_handler(ctx):
    return "sync " + ctx.args

async def silent(ctx):
    return None

async def broken(ctx):
    raise RuntimeError("handler broke")

async def context(ctx):
    return json.dumps({
        "raw": ctx.raw, "args": ctx.args, "key": ctx.key, "channel": ctx.msg.channel,
        "chat_id": ctx.msg.chat_id, "content": ctx.msg.content,
        "session_key": ctx.msg.session_key, "user_turn": ctx.is_user_turn,
        "loop": ctx.loop is not None,
    })

def register(api):
    api.register_command("/deploy", exact)
    api.register_command("/deploy", prefix, prefix=True)
    api.register_command("/deploy prod", longer, prefix=True)
    api.register_command("Git Log", sync_handler, prefix=True)
    api.register_command("/git status", silent)
    api.register_command("broken", broken)
    api.register_command("/ctx", context, prefix=True)
"""


@pytest.fixture(scope="module")
def commands(tmp_path_factory: pytest.TempPathFactory) -> Sidecar:
    tmp_path = tmp_path_factory.mktemp("commands")
    package = write_package(tmp_path / "p", "test.commands", COMMANDS,
                            commands=["deploy", "git", "broken", "ctx"])  # fmt: skip
    sidecar = Sidecar(package, data_dir=tmp_path / "data")
    register = sidecar.register()
    assert sorted(c["name"] for c in register["commands"]) == ["broken", "ctx", "deploy", "git"]
    assert register["commands"][0]["description"] == "command deploy"
    yield sidecar
    sidecar.close()


@pytest.mark.parametrize(
    ("name", "arguments", "reply"),
    [
        ("deploy", "", {"message": "exact raw='/deploy' args=''"}),
        ("deploy", "Staging now", {"message": "prefix args='Staging now'"}),
        (
            "deploy",
            "PROD eu-West",
            {"message": "longer args='eu-West'", "prompt": "Deploy to eu-West"},
        ),
        ("git", "log -3", {"message": "sync -3"}),
        ("git", "status", {}),
        ("git", "status extra", {"message": "no /git handler matches '/git status extra'"}),
        ("git", "", {"message": "no /git handler matches '/git'"}),
        ("broken", "", {"message": "/broken failed: handler broke"}),
    ],
    ids=[
        "exact",
        "prefix",
        "longest-prefix-first",
        "normalized-prefix",
        "exact-second-word",
        "exact-takes-no-arguments",
        "no-bare-match",
        "handler-raises",
    ],
)
def test_command_routing(commands: Sidecar, name: str, arguments: str, reply: dict) -> None:
    answer = commands.command(f"{name}-{arguments}", name, arguments)
    assert {k: v for k, v in answer.items() if k not in ("type", "id")} == reply


def test_bare_command_reaches_a_prefix_only_handler(commands: Sidecar) -> None:
    found = json.loads(commands.command("bare", "ctx", "")["message"])
    assert found["raw"] == "/ctx" and found["args"] == ""


def test_a_prefix_command_receives_raw_args_and_the_message(commands: Sidecar) -> None:
    found = json.loads(commands.command("ctx", "ctx", "Some Text  here")["message"])
    assert found == {
        "raw": "/ctx Some Text  here", "args": "Some Text  here", "key": "gateway:s1",
        "channel": "gateway", "chat_id": "s1", "content": "/ctx Some Text  here",
        "session_key": "gateway:s1", "user_turn": True, "loop": True,
    }  # fmt: skip


HOOKS = """
import json
from nanobot.agent.hook import AgentHook

LOG = []

class Echo:
    name = "echo"
    description = "echo"
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def execute(self, text=""):
        return text

class Dump:
    name = "dump"
    description = "what the hooks saw"
    parameters = {"type": "object", "properties": {}}

    async def execute(self):
        return json.dumps(LOG)

class Guard(AgentHook):
    def __init__(self, turn):
        super().__init__()
        self.turn = turn

    async def before_run(self, context):
        LOG.append(["before_run", self.turn])

    async def before_execute_tool(self, context, tool_call, tool, params):
        LOG.append(["before_execute_tool", self.turn, tool_call.id, tool_call.name,
                    type(tool).__name__, dict(params), context.session_key])
        if str(params.get("command", "")).startswith("rm "):
            return {"allow": False, "reason": "no rm"}
        if "path" in params:
            params["path"] = params["path"].lower()
        if tool_call.name == "swap":
            return {"arguments": {"text": "swapped"}}

    async def after_execute_tool(self, context, tool_call, tool, params, result):
        LOG.append(["after_execute_tool", self.turn, tool_call.id, result])
        if tool_call.name == "echo":
            return result.upper()

    async def on_execute_tool_error(self, context, tool_call, tool, params, error):
        return {"output": f"handled: {error}", "is_error": False}

    async def after_run(self, context):
        LOG.append(["after_run", self.turn, context.tools_used, context.stop_reason])

    async def on_error(self, context):
        LOG.append(["on_error", self.turn, context.error])

    async def on_finally(self, context):
        LOG.append(["on_finally", self.turn])

    async def on_stream(self, context, delta):
        pass

    def finalize_content(self, context, content):
        return content

    async def on_session_start(self, payload):
        LOG.append(["session_start", self.turn, payload["session_id"]])

    async def before_compact(self, payload):
        return {"allow": False, "reason": "keep it", "instruction": "be brief"}

TURNS = [0]

def factory(ctx):
    TURNS[0] += 1
    LOG.append(["factory", TURNS[0], ctx.session_key, ctx.channel])
    return Guard(TURNS[0])

def register(api):
    api.register_tool(Echo())
    api.register_tool(Dump())
    api.register_hook_factory(factory)
"""


def test_hook_points_map_to_events_and_may_block_or_rewrite(tmp_path: Path) -> None:
    package = write_package(tmp_path / "p", "test.hooks", HOOKS, tools=["echo", "dump"],
                            hooks=["guard"])  # fmt: skip
    with Sidecar(package, data_dir=tmp_path / "data") as sidecar:
        register = sidecar.register()
        assert register["events"] == ["tool_call", "tool_result", "turn_start", "turn_end",
                                      "session_start", "session_before_compact"]  # fmt: skip
        [unmapped] = register["gateway"]["diagnostics"]
        assert unmapped["code"] == "nanobot.hook_point_unmapped"
        assert "finalize_content, on_stream" in unmapped["message"]

        def reply(rid: str, event: str, **payload: object) -> dict:
            answer = sidecar.event(rid, event, **payload)
            return {k: v for k, v in answer.items() if k not in ("type", "id")}

        assert reply("1", "session_start") == {}
        assert reply("2", "turn_start") == {}
        assert reply("3", "tool_call", tool="bash", arguments={"command": "rm -rf /"}) == {
            "allow": False, "reason": "no rm",
        }  # fmt: skip
        assert reply("4", "tool_call", tool="read", arguments={"path": "README.MD"}) == {
            "arguments": {"path": "readme.md"}
        }
        assert reply("5", "tool_call", tool="swap", arguments={}) == {
            "arguments": {"text": "swapped"}
        }
        assert reply("6", "tool_call", tool="echo", arguments={"text": "hi"}) == {}
        assert reply("7", "tool_result", tool="echo", arguments={"text": "hi"}, output="hi",
                     is_error=False) == {"output": "HI"}  # fmt: skip
        assert reply("8", "tool_result", tool="bash", arguments={}, output="exit 1",
                     is_error=True) == {"output": "handled: exit 1", "is_error": False}  # fmt: skip
        assert reply("9", "turn_end") == {}
        assert reply("10", "turn_end", interrupted=True) == {}
        assert reply("11", "session_before_compact", instruction="", tokens_before=1,
                     entries=[]) == {"allow": False, "reason": "keep it",
                                     "instruction": "be brief"}  # fmt: skip
        assert reply("12", "session_end") == {}  # not subscribed: acknowledged
        log = json.loads(sidecar.tool("13", "dump")["content"])
    assert log == [
        ["factory", 1, "gateway:s1", "gateway"],  # the probe at registration
        ["factory", 2, "gateway:s1", "gateway"],  # session_start: an implicit turn
        ["session_start", 2, "s1"],
        ["factory", 3, "gateway:s1", "gateway"],  # turn_start: a fresh hook per turn
        ["before_run", 3],
        ["before_execute_tool", 3, "call_1", "bash", "_ToolView", {"command": "rm -rf /"},
         "gateway:s1"],
        ["before_execute_tool", 3, "call_2", "read", "_ToolView", {"path": "README.MD"},
         "gateway:s1"],
        ["before_execute_tool", 3, "call_3", "swap", "_ToolView", {}, "gateway:s1"],
        ["before_execute_tool", 3, "call_4", "echo", "Echo", {"text": "hi"}, "gateway:s1"],
        ["after_execute_tool", 3, "call_4", "hi"],  # paired with its tool_call
        ["after_run", 3, ["echo", "bash"], "completed"],
        ["on_finally", 3],
        ["factory", 4, "gateway:s1", "gateway"],
        ["on_error", 4, "interrupted"],
        ["on_finally", 4],
        ["factory", 5, "gateway:s1", "gateway"],
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("factory", "events", "diagnostic"),
    [
        ("lambda ctx: None", ["tool_call", "tool_result", "turn_start", "turn_end"], []),
        ("lambda ctx: Only()", ["tool_call", "turn_end"], []),
        ("lambda ctx: Streaming()", None, ["nanobot.hook_point_unmapped"]),
        (
            "lambda ctx: 1 / 0",
            None,
            ["nanobot.hook_factory_failed", "package.contribution_missing"],
        ),
    ],
    ids=["returns-none", "one-point", "only-unmapped", "raises"],
)
def test_a_factory_subscribes_only_to_what_its_hook_implements(
    tmp_path: Path, factory: str, events: list[str] | None, diagnostic: list[str]
) -> None:
    source = f"""
class Only:  # duck-typed: no AgentHook base
    async def before_execute_tool(self, context, tool_call, tool, params):
        return None

class Streaming:
    def wants_streaming(self):
        return True

def register(api):
    api.register_hook_factory({factory})
"""
    package = write_package(tmp_path / "p", "test.factory", source, hooks=["h"])
    with Sidecar(package, data_dir=tmp_path / "data") as sidecar:
        register = sidecar.register()
    assert register.get("events") == events
    assert codes(register["gateway"]["diagnostics"]) == diagnostic


def test_a_reraise_hook_that_raises_blocks_the_call(tmp_path: Path) -> None:
    source = """
from nanobot.agent.hook import AgentHook

class Strict(AgentHook):
    async def before_execute_tool(self, context, tool_call, tool, params):
        raise PermissionError("policy service unreachable")

class Lenient(AgentHook):
    async def before_execute_tool(self, context, tool_call, tool, params):
        raise PermissionError("ignored")

def strict(ctx):
    return Strict(reraise=True)

def lenient(ctx):
    return Lenient()

def register(api):
    api.register_hook_factory(strict)
    api.register_hook_factory(lenient)
"""
    package = write_package(tmp_path / "p", "test.strict", source, hooks=["strict", "lenient"])
    with Sidecar(package, data_dir=tmp_path / "data") as sidecar:
        assert sidecar.register()["gateway"]["diagnostics"] == []
        answer = sidecar.event("1", "tool_call", tool="bash", arguments={})
    assert answer["allow"] is False
    assert answer["reason"] == "test.strict: policy service unreachable"


def test_hook_names_with_several_declared_hooks(tmp_path: Path) -> None:
    source = """
def first(ctx):
    return None

def register(api):
    api.register_hook_factory(first)
    api.register_hook_factory(lambda ctx: None, name="second")
    api.register_hook_factory(lambda ctx: None)
"""
    package = write_package(tmp_path / "p", "test.names", source,
                            hooks=["first", "second", "third"])  # fmt: skip
    with Sidecar(package, data_dir=tmp_path / "data") as sidecar:
        reported = sidecar.register()["gateway"]["diagnostics"]
    assert codes(reported) == ["nanobot.undeclared_registration", "package.contribution_missing"]
    assert reported[0]["contribution"] == "<lambda>"
    assert reported[1]["contribution"] == "third"
