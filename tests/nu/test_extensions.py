"""Nu extensions in the Node sidecar's Nu host: Nu's four hooks with Nu's return rules,
nu.config, nu.secret, watchers, and the registrations a headless host reports as
unsupported. Real installs, real sidecar processes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.host import Gateway
from gateway.model import AgentLink, UserMessage
from gateway.packages import write_package_config
from gateway.packages.secrets import set_secret
from tests.nu._packages import (
    Recorder,
    codes,
    config_for,
    data_folder,
    install_ready,
    messages,
    probe_package,
    requires_runtime,
)
from tests.serve._traced import by_name, provider, traced

pytestmark = [requires_runtime, pytest.mark.anyio]

RECORD = """
import fs from "node:fs";
const record = (nu, entry) => fs.appendFileSync(nu.config.logFile, JSON.stringify(entry) + "\\n");
"""


@asynccontextmanager
async def running(
    tmp_path: Path,
    extensions: dict[str, str],
    *,
    tools: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    nu: dict[str, Any] | None = None,
    agent: AgentLink | None = None,
    tool_yaml: dict[str, dict[str, Any]] | None = None,
) -> AsyncIterator[Gateway]:
    home = tmp_path / "home"
    manifest = {"config": ["logFile", "userId"], "secrets": list(secrets or {}), **(nu or {})}
    source = probe_package(
        tmp_path / "pkg", tools or {}, extensions=extensions, nu=manifest, tool_yaml=tool_yaml
    )
    package = install_ready(home, source)
    write_package_config(
        home, package, {"logFile": str(log_file(tmp_path, package)), "userId": "ada"}
    )
    for name, value in (secrets or {}).items():
        set_secret(home, package, name, value)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    config = config_for(home, tmp_path)
    async with open_gateway(workspace, trust=True, config=config, agent=agent) as gateway:
        yield gateway


def log_file(tmp_path: Path, package: str = "nu-probe") -> Path:
    """Where the extensions record: the package's data folder, writable in the sandbox."""
    return data_folder(tmp_path / "home", package) / "events.jsonl"


def events(tmp_path: Path) -> list[dict[str, Any]]:
    log = log_file(tmp_path)
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_before_agent_start_prompts_are_added_to_the_system_prompt(tmp_path: Path) -> None:
    first = 'export default (nu) => nu.on("before_agent_start", () => ({ prompt: "Answer in British English." }));'
    second = 'export default (nu) => nu.on("before_agent_start", (e) => ({ prompt: `User said: ${e.prompt}` }));'
    async with running(tmp_path, {"a": first, "b": second}) as gateway:
        result = await gateway.before_agent_start("hello", "You are helpful.")
    assert result.system_prompt == (
        "You are helpful.\n\nAnswer in British English.\n\nUser said: hello"
    )


async def test_input_continue_transform_and_handled(tmp_path: Path) -> None:
    code = """
export default (nu) => nu.on("input", (event) => {
  if (event.text === "stop") return { action: "handled" };
  if (event.text.startsWith("t:")) return { action: "transform", text: event.text.slice(2).toUpperCase() };
  return { action: "continue" };
});
"""
    async with running(tmp_path, {"input": code}) as gateway:
        plain = await gateway.submit_input("hello")
        changed = await gateway.submit_input("t:shout")
        handled = await gateway.submit_input("stop")
    assert (plain.action, plain.text) == ("continue", "hello")
    assert (changed.action, changed.text) == ("transform", "SHOUT")
    assert (handled.action, handled.handled_by) == ("handled", "nu-probe")


async def test_two_hooks_served_at_once_each_read_their_own_trace(tmp_path: Path) -> None:
    # No timing: the first hook waits until the second one runs, then both read again.
    code = """
let release;
const both = new Promise((resolve) => { release = resolve; });
const arrived = [];
export default (nu) => nu.on("input", async (event) => {
  const before = nu.trace();
  arrived.push(event.text);
  if (arrived.length === 2) release();
  await both;
  return { action: "transform", text: JSON.stringify({ before, after: nu.trace(), arrived }) };
});
"""
    tracer = provider().get_tracer("test-agent")
    seen: dict[str, Any] = {}
    with traced() as exporter:
        async with running(tmp_path, {"input": code}) as gateway:

            async def submit(label: str) -> None:
                with tracer.start_as_current_span(f"agent {label}"):
                    seen[label] = json.loads((await gateway.submit_input(label)).text)

            async with anyio.create_task_group() as group:
                group.start_soon(submit, "a")
                group.start_soon(submit, "b")
            outside = json.loads((await gateway.submit_input("c")).text)
        spans = exporter.get_finished_spans()
    hooks = {span.context.trace_id: span.context for span in spans if span.name == "event input"}

    def parent(trace_id: int) -> dict[str, str]:
        context = hooks.pop(trace_id)
        flags = int(context.trace_flags)
        return {"traceparent": f"00-{trace_id:032x}-{context.span_id:016x}-{flags:02x}"}

    for label in ("a", "b"):
        expected = parent(by_name(spans)[f"agent {label}"].context.trace_id)
        assert sorted(seen[label]["arrived"]) == ["a", "b"]  # both were in the sidecar at once
        assert seen[label]["before"] == seen[label]["after"] == expected
    assert seen["a"]["before"] != seen["b"]["before"]
    # The hook asked later, outside the agents' spans, is a trace of its own: it reads that.
    (last,) = hooks
    assert outside["before"] == outside["after"] == parent(last)


async def test_turn_end_and_tool_execution_end_are_delivered_once(tmp_path: Path) -> None:
    code = (
        RECORD
        + """
export default (nu) => {
  nu.on("turn_end", (e) => record(nu, { hook: "turn_end", turn: e.turnIndex, interrupted: e.interrupted }));
  nu.on("tool_execution_end", (e) => record(nu, { hook: "tool_execution_end", tool: e.toolName, isError: e.isError, text: e.result.content[0].text }));
};
"""
    )
    # A tool that crashes once and is retried still makes one tool_execution_end.
    flaky = """
export default async (args) => {
  const reply = await (await fetch(args.url)).json();
  if (reply.crash) process.kill(process.pid, "SIGKILL");
  return reply.answer;
};
"""
    with Recorder([{"crash": True}, {"answer": 42}]) as server:
        async with running(tmp_path, {"hooks": code}, tools={"answer": flaky}) as gateway:
            await gateway.start_turn()
            await gateway.call_tool("probe__answer", {"url": server.url})
            await gateway.end_turn()
            await gateway.start_turn()
            await gateway.end_turn(interrupted=True)
            retried = codes(gateway).count("tool.retried")
    assert retried == 1 and len(server.requests) == 2
    assert events(tmp_path) == [
        {"hook": "tool_execution_end", "tool": "probe__answer", "isError": False, "text": "42"},
        {"hook": "turn_end", "turn": 0, "interrupted": False},
        {"hook": "turn_end", "turn": 1, "interrupted": True},
    ]


async def test_a_failing_handler_is_logged_and_skipped(tmp_path: Path) -> None:
    code = (
        RECORD
        + """
export default (nu) => {
  nu.on("before_agent_start", () => { throw new Error("handler broke"); });
  nu.on("before_agent_start", () => ({ prompt: "still here" }));
  nu.on("turn_end", async () => { throw new Error("async broke"); });
  nu.on("turn_end", () => record(nu, { hook: "turn_end" }));
};
"""
    )
    async with running(tmp_path, {"failing": code}) as gateway:
        result = await gateway.before_agent_start("hi", "")
        await gateway.start_turn()
        await gateway.end_turn()
        log = next(iter(gateway.processes)).plan.log_path
    assert result.system_prompt == "still here"
    assert events(tmp_path) == [{"hook": "turn_end"}]
    text = log.read_text()
    assert "before_agent_start handler failed, skipped: Error: handler broke" in text
    assert "turn_end handler failed, skipped: Error: async broke" in text


async def test_nu_config_holds_the_listed_settings(tmp_path: Path) -> None:
    code = 'export default (nu) => nu.on("before_agent_start", () => ({ prompt: JSON.stringify(nu.config) }));'
    async with running(tmp_path, {"config": code}) as gateway:
        result = await gateway.before_agent_start("", "")
    assert json.loads(result.system_prompt) == {
        "logFile": str(log_file(tmp_path)),
        "userId": "ada",
    }


async def test_nu_secret_reads_listed_secrets_and_refuses_others_naming_the_rule(
    tmp_path: Path,
) -> None:
    code = (
        RECORD
        + """
export default (nu) => {
  record(nu, { token: nu.secret("API_TOKEN"), unset: nu.secret("SPARE_TOKEN") ?? null });
  try { nu.secret("HOME"); } catch (error) { record(nu, { refused: error.message }); }
};
"""
    )
    async with running(
        tmp_path, {"secrets": code}, secrets={"API_TOKEN": "tok-1"},
        nu={"secrets": ["API_TOKEN", "SPARE_TOKEN"]},
    ):  # fmt: skip
        pass
    assert events(tmp_path) == [
        {"token": "tok-1", "unset": None},
        {
            "refused": 'nu.secret("HOME"): HOME is not in the package\'s nu.secrets '
            "(API_TOKEN, SPARE_TOKEN); an extension reads only the secrets its package lists"
        },
    ]


async def test_unsupported_registrations_are_reported_naming_the_api(tmp_path: Path) -> None:
    code = """
export default (nu) => {
  nu.registerChannel({ id: "slack" });
  nu.registerMemoryStore({ name: "redis" });
  nu.registerBrowserProvider({});
  nu.registerSandbox({ id: "docker" });
  nu.registerWatcher({ name: "no-start" });
};
"""
    async with running(tmp_path, {"registrars": code}) as gateway:
        found = [d.contribution for d in gateway.diagnostics if d.code == "nu.unsupported_api"]
        text = messages(gateway, "nu.unsupported_api")
    assert found == [
        "registerChannel", "registerMemoryStore", "registerBrowserProvider", "registerSandbox",
        "registerWatcher",
    ]  # fmt: skip
    assert text[0].startswith(
        'nu-probe: registerChannel "slack" (nu-probe (src/registrars.mjs)) is not supported'
    )
    assert "a watcher needs start(trigger)" in text[4]


async def test_an_unknown_hook_is_reported_and_never_runs(tmp_path: Path) -> None:
    code = (
        'export default (nu) => { nu.on("session_start", () => {}); nu.on("turn_end", () => {}); };'
    )
    async with running(tmp_path, {"unknown": code}) as gateway:
        assert messages(gateway, "nu.event_unknown") == [
            'nu-probe: nu-probe (src/unknown.mjs): nu.on("session_start"): Nu has no such hook '
            "(before_agent_start, input, turn_end, tool_execution_end); the handler never runs"
        ]
        assert [h.event for h in gateway.registry.hooks()] == ["turn_end"]


async def test_an_extension_whose_default_export_throws_registers_nothing(tmp_path: Path) -> None:
    broken = 'export default (nu) => { nu.on("turn_end", () => {}); throw new Error("boom"); };'
    shapeless = "export const notDefault = 1;"
    fine = 'export default (nu) => nu.on("input", () => ({ action: "continue" }));'
    async with running(
        tmp_path, {"broken": broken, "shapeless": shapeless, "fine": fine}
    ) as gateway:
        failed = messages(gateway, "nu.load_failed")
        hooks = [h.event for h in gateway.registry.hooks()]
    assert hooks == ["input"]
    assert any("src/broken.mjs): its default export threw; nothing of it runs" in m for m in failed)
    assert any("src/shapeless.mjs): its default export is not a function" in m for m in failed)


async def test_a_watcher_that_fires_becomes_input_for_the_agent(tmp_path: Path) -> None:
    code = """
export default (nu) => nu.registerWatcher({
  name: "mail",
  start(trigger) {
    const timer = setTimeout(() => trigger({ text: "New mail from Ada" }), 50);
    return () => clearTimeout(timer);
  },
});
"""
    received: list[UserMessage] = []
    arrived = anyio.Event()

    def submit(message: UserMessage) -> None:
        received.append(message)
        arrived.set()

    async with running(tmp_path, {"watcher": code}, agent=AgentLink(submit_input=submit)):
        with anyio.fail_after(30):
            await arrived.wait()
    assert [(m.content, m.deliver_as, m.extension) for m in received] == [
        ("New mail from Ada", "now", "nu-probe")
    ]


async def test_a_watcher_runs_from_the_start_even_when_the_registration_is_cached(
    tmp_path: Path,
) -> None:
    """Lazy start holds a cached runtime until first use; a Nu extension starts at once."""
    code = """
export default (nu) => {
  nu.on("turn_end", () => {});
  nu.registerWatcher({ start(trigger) { setTimeout(() => trigger("ping"), 50); } });
};
"""
    arrived: list[str] = []
    async with running(tmp_path, {"watcher": code}):
        pass  # the first start caches the registration
    done = anyio.Event()

    def submit(message: UserMessage) -> None:
        arrived.append(message.content)
        done.set()

    config = config_for(tmp_path / "home", tmp_path)
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config, agent=AgentLink(submit_input=submit)
    ) as gateway:
        assert [p.plan.name for p in gateway.processes] == ["nu-probe"]
        with anyio.fail_after(30):
            await done.wait()
    assert arrived == ["ping"]


async def test_a_watcher_firing_during_a_turn_waits_as_a_follow_up(tmp_path: Path) -> None:
    code = """
export default (nu) => {
  nu.on("input", () => ({ action: "continue" }));
  let fire;
  nu.registerWatcher({ start(trigger) { fire = trigger; } });
  nu.on("turn_end", () => { fire("after the turn"); });
};
"""
    async with running(tmp_path, {"watcher": code}) as gateway:
        await gateway.start_turn()
        await gateway.end_turn()
        with anyio.fail_after(30):
            while not gateway.pending_user_messages:
                await anyio.sleep(0.05)
        assert [m.content for m in gateway.take_follow_ups()] == ["after the turn"]


async def test_typescript_extensions_with_type_imports_load(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = probe_package(tmp_path / "pkg", {}, nu={"extensions": ["src/index.ts"]}, files={
        "src/index.ts": 'import type { Extension } from "@rebuno/nu-types";\n'
        'import { Nu } from "@rebuno/nu-types";\n'
        'const ext: Extension = (nu: Nu) => nu.on("before_agent_start", () => ({ prompt: "typed" }));\n'
        "export default ext;\n"
    })  # fmt: skip
    install_ready(home, source)
    (tmp_path / "ws").mkdir()
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
    ) as gateway:
        assert (await gateway.before_agent_start("", "")).system_prompt == "typed"
        assert "nu.load_failed" not in codes(gateway)
