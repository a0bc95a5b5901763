"""nanobot packages inside a real gateway (``open_gateway``): installed, gated, started in
their sidecars, called, hooked, and kept apart when one of them misbehaves."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.store import StateStore

from ._helpers import ECHO, codes, echo_package, install_ready, set_package, write_package

pytestmark = pytest.mark.anyio


async def test_a_package_runs_calls_and_commands_through_the_gateway(workspace, tmp_path):
    source = (
        ECHO.replace("@ID@", "acme.echo").replace("@SUFFIX@", "a").replace("@TOOLS@", "['echo']")
        + "\nasync def hello(ctx):\n    return 'hello ' + ctx.args\n"
        + (
            "\n_register = register\ndef register(api):\n    _register(api)\n"
            "    api.register_command('hello', hello, prefix=True)\n"
        )
    )
    package = write_package(tmp_path / "src" / "echo", "acme.echo", source, tools=["echo_a"],
                            commands=["hello"])  # fmt: skip
    install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [(t.name, t.owner) for t in gateway.tools()] == [("echo_a", "acme.echo")]
        result = await gateway.call_tool("echo_a", {"text": "hi"})
        assert (result.content, result.is_error) == ("acme.echo:hi", False)
        assert (await gateway.run_command("hello", "World")).message == "hello World"
        assert list(gateway.diagnostics) == []
    log = next(workspace.config.logs_dir.glob("package-*.log")).read_text()
    assert "printed by hi" in log


async def test_a_package_that_blocks_in_register_does_not_block_the_host(
    workspace, tmp_path, monkeypatch
):
    monkeypatch.setenv("GATEWAY_NANOBOT_TIMEOUT", "1")
    sleepy = write_package(
        tmp_path / "src" / "sleepy", "test.sleepy",
        "import time\ndef register(api):\n    time.sleep(120)\n", tools=["never"],
    )  # fmt: skip
    install_ready(workspace.config.home, sleepy)
    # The other package is not a nanobot one: the 1 s timeout is for the sleeper alone, and
    # a loaded machine may take longer than that to start a Python process.
    workspace.add_extension("good", tools=["echo_good"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("echo_good", {"text": "x"})
        assert (json.loads(result.content)["arguments"], result.is_error) == ({"text": "x"}, False)
        failed = [d for d in gateway.diagnostics if d.code == "extension.start_failed"]
        assert [d.package for d in failed] == ["test.sleepy"]
        assert "timed out" in failed[0].message


async def test_a_package_that_crashes_its_sidecar_is_reported_and_others_keep_working(
    workspace, tmp_path
):
    home = workspace.config.home
    install_ready(home, echo_package(tmp_path / "src", "test.crash", "c", ("echo", "crash")))
    install_ready(home, echo_package(tmp_path / "src", "test.other", "o"))
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        crashed = await gateway.call_tool("crash_c", {})
        assert crashed.is_error and "exited unexpectedly" in crashed.content
        assert "extension.exited" in codes(gateway.diagnostics)
        assert (await gateway.call_tool("echo_o", {"text": "y"})).content == "test.other:y"


async def test_a_slow_call_times_out_alone_and_the_sidecar_survives(
    workspace, tmp_path, monkeypatch
):
    # The limit covers the sidecar's start and each request: ample for a loaded machine to
    # start Python and answer the echo; the slow call never ends on its own (600 s).
    monkeypatch.setenv("GATEWAY_NANOBOT_TIMEOUT", "5")
    package = echo_package(tmp_path / "src", "test.slow", "s", ("echo", "slow"))
    install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        timed_out = await gateway.call_tool("slow_s", {"seconds": 600})
        assert timed_out.is_error and "timed out" in timed_out.content
        assert (await gateway.call_tool("echo_s", {"text": "z"})).content == "test.slow:z"


SAME_NAMES = """
import helpers

class Which:
    name = "which_@NAME@"
    description = "which helpers"
    parameters = {"type": "object", "properties": {}}

    async def execute(self):
        return helpers.VALUE

def register(api):
    api.register_tool(Which())
"""


async def test_two_packages_shipping_the_same_module_names_are_isolated(workspace, tmp_path):
    for name in ("alpha", "beta"):
        package = write_package(
            tmp_path / "src" / name, f"test.{name}",
            {"extension.py": SAME_NAMES.replace("@NAME@", name),
             "helpers.py": f"VALUE = 'helpers of {name}'\n"},
            tools=[f"which_{name}"],
        )  # fmt: skip
        install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        for name in ("alpha", "beta"):
            assert (await gateway.call_tool(f"which_{name}", {})).content == f"helpers of {name}"


GUARD = """
from nanobot.agent.hook import AgentHook

class Guard(AgentHook):
    async def before_execute_tool(self, context, tool_call, tool, params):
        if str(params.get("command", "")).startswith("rm "):
            return {"allow": False, "reason": "rm is not allowed here"}
        if "text" in params:
            params["text"] = params["text"].strip()

    async def after_execute_tool(self, context, tool_call, tool, params, result):
        if tool_call.name == "bash":
            return result + " [checked]"

def register(api):
    api.register_hook_factory(lambda ctx: Guard())
"""


async def test_a_hook_blocks_and_rewrites_built_in_and_extension_tool_calls(workspace, tmp_path):
    home = workspace.config.home
    install_ready(home, write_package(tmp_path / "src" / "guard", "test.guard", GUARD,
                                      hooks=["guard"]))  # fmt: skip
    install_ready(home, echo_package(tmp_path / "src", "test.tools", "t"))
    with StateStore.open(home) as store:  # it changes the agent's and another package's tools
        store.grant("test.guard", ["hooks.rewrite"], ["hooks.rewrite"])
    ran: list[dict[str, Any]] = []

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome(f"ran {arguments['command']}")

    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("bash", "run a command", {"type": "object"}, bash)
        assert [(h.event, h.owner) for h in gateway.registry.hooks()] == [
            ("tool_call", "test.guard"), ("tool_result", "test.guard"), ("turn_end", "test.guard"),
        ]  # fmt: skip
        blocked = await gateway.call_tool("bash", {"command": "rm -rf /"})
        assert blocked.blocked and blocked.content == "rm is not allowed here"
        assert ran == []
        allowed = await gateway.call_tool("bash", {"command": "ls"})
        assert allowed.content == "ran ls [checked]" and ran == [{"command": "ls"}]
        rewritten = await gateway.call_tool("echo_t", {"text": "  padded  "})
        assert rewritten.content == "test.tools:padded"
        assert rewritten.arguments == {"text": "padded"}


TURNS = """
import json
from nanobot.agent.hook import AgentHook

SEEN = []

class Watch(AgentHook):
    async def before_run(self, context):
        SEEN.append("before_run")

    async def after_run(self, context):
        SEEN.append(f"after_run {context.tools_used}")

    async def on_session_start(self, payload):
        SEEN.append("session_start")

    async def on_session_end(self, payload):
        SEEN.append("session_end")

    async def before_compact(self, payload):
        return {"instruction": "keep the decisions"}

    async def after_compact(self, payload):
        SEEN.append(f"compacted {payload['did_compact']}")

class Seen:
    name = "seen"
    description = "what the hook saw"
    parameters = {"type": "object", "properties": {}}
    read_only = True

    async def execute(self):
        return json.dumps(SEEN)

def register(api):
    api.register_tool(Seen())
    api.register_hook_factory(lambda ctx: Watch())
"""


async def test_turn_session_and_compaction_hooks_follow_the_gateway(workspace, tmp_path):
    package = write_package(tmp_path / "src" / "turns", "test.turns", TURNS, tools=["seen"],
                            hooks=["watch"])  # fmt: skip
    install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport, plan=False
    ) as gateway:
        await gateway.start_session()
        await gateway.start_turn()
        await gateway.call_tool("seen", {})
        await gateway.end_turn()

        async def summarize(instruction: str, entries: list[Any]) -> tuple[str, int]:
            return f"summary ({instruction})", 0

        compaction = await gateway.compact(summarizer=summarize)
        assert compaction.summary == "summary (keep the decisions)"
        await gateway.end_session()
        seen = json.loads((await gateway.call_tool("seen", {})).content)
    assert seen == ["session_start", "before_run", "after_run ['seen']", "compacted True",
                    "session_end"]  # fmt: skip


async def test_removing_a_package_removes_its_hooks_and_keeps_the_others(workspace, tmp_path):
    home = workspace.config.home
    install_ready(home, write_package(tmp_path / "src" / "guard", "test.guard", GUARD,
                                      hooks=["guard"]))  # fmt: skip
    install_ready(home, write_package(tmp_path / "src" / "turns", "test.turns", TURNS,
                                      tools=["seen"], hooks=["watch"]))  # fmt: skip
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert {h.owner for h in gateway.registry.hooks()} == {"test.guard", "test.turns"}
        assert [h.owner for h in gateway.registry.hooks("tool_call")] == ["test.guard"]
        set_package(home, "test.guard", enabled=False)
        await gateway.reload()
        assert {h.owner for h in gateway.registry.hooks()} == {"test.turns"}
        assert gateway.registry.hooks("tool_call") == []
        assert not (await gateway.call_tool("seen", {})).is_error


async def test_read_only_tools_are_offered_in_plan_mode(workspace, tmp_path):
    install_ready(
        workspace.config.home,
        write_package(
            tmp_path / "src" / "turns", "test.turns", TURNS, tools=["seen"], hooks=["watch"]
        ),
    )
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport, plan=True
    ) as gateway:
        assert [(t.name, t.capabilities) for t in gateway.tools()] == [("seen", ("read",))]


async def test_registration_problems_surface_as_gateway_diagnostics(workspace, tmp_path):
    source = """
class T:
    description = "t"
    parameters = {"type": "object"}
    def __init__(self, name):
        self.name = name
    async def execute(self):
        return self.name

def register(api):
    api.register_tool(T("declared"))
    api.register_tool(T("undeclared"))
"""
    package = write_package(
        tmp_path / "src" / "p", "test.diag", source, tools=["declared", "never"],
        extra=[{"kind": "channel", "name": "telegram"}],
    )  # fmt: skip
    install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [t.name for t in gateway.tools()] == ["declared"]
        found = {(d.code, d.package, d.contribution) for d in gateway.diagnostics}
    assert found == {
        ("nanobot.contribution_metadata_only", "test.diag", "telegram"),
        ("nanobot.undeclared_registration", "test.diag", "undeclared"),
        ("package.contribution_missing", "test.diag", "never"),
    }


async def test_duplicate_tool_names_across_packages_are_diagnostics(workspace, tmp_path):
    home = workspace.config.home
    install_ready(home, echo_package(tmp_path / "src", "test.one", "same"))
    install_ready(home, echo_package(tmp_path / "src", "test.two", "same"))
    bash = write_package(
        tmp_path / "src" / "bash", "test.bash",
        "class B:\n    name = 'bash'\n    description = 'b'\n"
        "    parameters = {'type': 'object'}\n    async def execute(self):\n        return 'x'\n"
        "def register(api):\n    api.register_tool(B())\n",
        tools=["bash"],
    )  # fmt: skip
    install_ready(home, bash)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        found = codes(gateway.diagnostics)
        # nanobot's rule across packages: the first keeps it unless `replaces` names it.
        assert "package.contribution_conflict" in found and "registry.builtin_name" in found
        assert gateway.registry.tool("bash") is None
        assert (await gateway.call_tool("echo_same", {"text": "w"})).content == "test.one:w"


async def test_one_broken_package_does_not_block_unrelated_packages(workspace, tmp_path):
    home = workspace.config.home
    install_ready(
        home,
        write_package(
            tmp_path / "src" / "broken",
            "test.broken",
            "def register(api):\n    raise RuntimeError('cannot start')\n",
            tools=["nothing"],
        ),
    )
    install_ready(
        home,
        write_package(
            tmp_path / "src" / "missing", "test.missing", {"other.py": ""}, tools=["nothing2"]
        ),
    )
    install_ready(home, echo_package(tmp_path / "src", "test.fine", "fine"))
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("echo_fine", {"text": "ok"})).content == "test.fine:ok"
        failed = {d.package: d.message for d in gateway.diagnostics
                  if d.code == "nanobot.register_failed"}  # fmt: skip
    assert "RuntimeError: cannot start" in failed["test.broken"]
    assert "entry module 'extension' is not in the package" in failed["test.missing"]
