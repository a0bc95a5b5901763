"""Nu tools run: one fresh Node per call, reading only its bundle, seeing only its secrets;
results as JSON text or MCP content; crashes, timeouts. Real installs, real Node processes."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from gateway import open_gateway
from gateway.packages import write_package_config
from gateway.packages.secrets import set_secret
from tests.nu._packages import (
    Recorder,
    codes,
    config_for,
    install_ready,
    messages,
    probe_package,
    requires_runtime,
)
from tests.sandbox.conftest import needs_landlock

pytestmark = [requires_runtime, pytest.mark.anyio]

DENIED = "Access to this API has been restricted"
"""What Node's permission model throws (code ERR_ACCESS_DENIED)."""
READ = """
import fs from "node:fs";
export default (args) => fs.readFileSync(args.path, "utf8");
"""
SPAWN = """
import { execFileSync } from "node:child_process";
export default () => execFileSync("/bin/echo", ["spawned"]).toString();
"""
WRITE = """
import fs from "node:fs";
export default (args) => { fs.writeFileSync(args.path, "x"); return "written"; };
"""
WORKER = """
import { Worker } from "node:worker_threads";
export default () => { new Worker("1", { eval: true }); return "worker started"; };
"""
SCRATCH = """
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
export default () => {
  const file = path.join(os.tmpdir(), "note.txt");
  fs.writeFileSync(file, "kept for the call");
  return { tmp: os.tmpdir(), home: os.homedir(), read: fs.readFileSync(file, "utf8") };
};
"""
ENV = "export default () => ({ ...process.env });"
ECHO = "export default (args, config) => ({ args, config });"
TEXT = 'export default () => "plain text";'
THROW = 'export default async () => { throw new Error("HTTP 401"); };'
NOISY = 'export default () => { console.log("noise on stdout"); process.stdout.write("more"); return 1; };'
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
MEDIA = f"""
export default () => ({{ content: [
  {{ type: "text", text: "a chart" }},
  {{ type: "image", mimeType: "image/png", data: "{PNG}" }},
  {{ type: "audio", mimeType: "audio/wav", data: "UklGRg==" }},
] }});
"""
BAD_PART = 'export default () => ({ content: [{ type: "resource", resource: { uri: "x" } }] });'


async def call(
    tmp_path: Path,
    tools: dict[str, str],
    name: str,
    arguments: dict,
    *,
    network: bool = True,
    **options,
):
    home = tmp_path / "home"
    source = probe_package(tmp_path / "pkg", tools, **options)
    package = install_ready(home, source, network=network)
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        result = await gateway.call_tool(f"probe__{name}", arguments)
        return result, gateway, package


async def test_a_tool_cannot_read_a_file_outside_its_bundle(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's data")
    result, _, _ = await call(tmp_path, {"read": READ}, "read", {"path": str(secret)})
    assert result.is_error and DENIED in result.content
    assert "the user's data" not in result.content


async def test_a_tool_cannot_read_its_own_package_sources(tmp_path: Path) -> None:
    """Only the bundle: not even the package's other files."""
    home = tmp_path / "home"
    package = install_ready(home, probe_package(tmp_path / "pkg", {"read": READ}))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        root = next(s for s in gateway.packages if s.id == package).package.record.path
        result = await gateway.call_tool("probe__read", {"path": str(root / "package.json")})
    assert result.is_error and DENIED in result.content


async def test_a_tool_cannot_spawn_a_process(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"spawn": SPAWN}, "spawn", {})
    assert result.is_error and DENIED in result.content
    assert "spawned" not in result.content


async def test_a_tool_cannot_start_a_worker(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"worker": WORKER}, "worker", {})
    assert result.is_error and DENIED in result.content


@needs_landlock
async def test_a_tool_reaches_the_network_only_once_its_package_is_granted_it(
    tmp_path: Path,
) -> None:
    code = "export default async (args) => (await fetch(args.url)).json();"
    with Recorder([{"answer": 42}]) as server:
        refused, _, _ = await call(
            tmp_path / "a", {"get": code}, "get", {"url": server.url}, network=False
        )
        granted, _, _ = await call(tmp_path / "b", {"get": code}, "get", {"url": server.url})
    assert (refused.content, refused.is_error) == ("fetch failed", True)
    assert (granted.content, granted.is_error) == ('{"answer":42}', False)
    assert len(server.requests) == 1


@needs_landlock
async def test_a_tool_refused_the_network_names_the_grant_and_granted_it_says_nothing(
    tmp_path: Path,
) -> None:
    code = "export default async (args) => (await fetch(args.url)).json();"
    closed = {"url": "http://127.0.0.1:9/"}  # refused by the sandbox, or by no listener
    refused, _, package = await call(tmp_path / "a", {"get": code}, "get", closed, network=False)
    granted, _, _ = await call(tmp_path / "b", {"get": code}, "get", closed)
    assert (refused.content, refused.is_error) == (granted.content, granted.is_error)
    (said,) = [d for d in refused.diagnostics if d.code == "sandbox.no_network_grant"]
    assert said.hint == f"gateway permissions {package} network"
    assert "sandbox.no_network_grant" not in {d.code for d in granted.diagnostics}


async def test_a_tool_cannot_write_outside_its_call_folder(tmp_path: Path) -> None:
    target = tmp_path / "written.txt"
    result, _, _ = await call(tmp_path, {"write": WRITE}, "write", {"path": str(target)})
    assert result.is_error and DENIED in result.content
    assert not target.exists()


async def test_a_tool_writes_and_reads_its_private_folder_which_goes_after(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"scratch": SCRATCH}, "scratch", {})
    seen = json.loads(result.content)
    assert not result.is_error and seen["read"] == "kept for the call"
    assert seen["tmp"] == seen["home"]
    assert not Path(seen["tmp"]).exists()


async def test_a_tool_sees_only_its_declared_secrets_and_the_minimal_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_LEAK_PROBE", "from the gateway")
    monkeypatch.setenv("GATEWAY_PASSTHROUGH_ENV", "GATEWAY_LEAK_PROBE")
    monkeypatch.setenv("NODE_OPTIONS", "--require /nonexistent.js")
    home = tmp_path / "home"
    tree = probe_package(
        tmp_path / "pkg",
        {"env": ENV, "other": ENV},
        tool_yaml={"env": {"secrets": ["API_TOKEN"]}},
        nu={"secrets": ["API_TOKEN", "OTHER_TOKEN"]},
    )
    package = install_ready(home, tree)
    set_secret(home, package, "API_TOKEN", "tok-1")
    set_secret(home, package, "OTHER_TOKEN", "tok-2")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        env = json.loads((await gateway.call_tool("probe__env", {})).content)
        other = json.loads((await gateway.call_tool("probe__other", {})).content)
    allowed = {"LANG", "LC_ALL", "LC_CTYPE", "TZ", "HOME", "TMPDIR"}
    assert env["API_TOKEN"] == "tok-1"
    assert set(env) - allowed == {"API_TOKEN"}
    assert set(other) - allowed == set()  # a tool declaring no secret sees none
    assert os.environ["HOME"] != env["HOME"]


async def test_a_tool_receives_its_arguments_and_the_listed_settings(tmp_path: Path) -> None:
    from gateway.packages import write_package_config

    home = tmp_path / "home"
    package = install_ready(
        home, probe_package(tmp_path / "pkg", {"echo": ECHO}, nu={"config": ["userId"]})
    )
    write_package_config(home, package, {"userId": "ada", "unlisted": 1, "$gateway": {"x": 1}})
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        result = await gateway.call_tool("probe__echo", {"query": "cache"})
    assert json.loads(result.content) == {"args": {"query": "cache"}, "config": {"userId": "ada"}}


async def test_a_plain_value_is_its_json_text(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"text": TEXT}, "text", {})
    assert (result.content, result.is_error) == ('"plain text"', False)


async def test_a_thrown_error_is_an_error_result_with_its_message(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"throw": THROW}, "throw", {})
    assert (result.content, result.is_error) == ("HTTP 401", True)


async def test_what_a_tool_prints_does_not_become_its_result(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"noisy": NOISY}, "noisy", {})
    assert (result.content, result.is_error) == ("1", False)


async def test_mcp_content_keeps_images_and_audio_saved_under_the_workspace_folder(
    tmp_path: Path,
) -> None:
    result, _, _ = await call(tmp_path, {"media": MEDIA}, "media", {})
    assert result.content == "a chart" and not result.is_error
    kinds = [(p["type"], p.get("mime_type")) for p in result.parts or []]
    assert kinds == [("text", None), ("image", "image/png"), ("audio", "audio/wav")]
    saved = tmp_path / "home" / "workspace" / "tools"
    image = Path(result.parts[1]["path"])
    assert image.parent == saved and image.suffix == ".png"
    assert image.read_bytes() == base64.b64decode(PNG)
    assert Path(result.parts[2]["path"]).suffix == ".wav"
    assert oct(image.stat().st_mode & 0o777) == "0o600"


async def test_a_content_part_of_another_kind_is_an_invalid_result(tmp_path: Path) -> None:
    result, _, _ = await call(tmp_path, {"bad": BAD_PART}, "bad", {})
    assert result.is_error and result.error_code == "invalid_extension_result"
    assert "'resource' parts are not supported" in result.content


async def test_a_safe_to_retry_call_whose_process_crashes_runs_once_more(tmp_path: Path) -> None:
    code = """
export default async (args) => {
  const reply = await (await fetch(args.url)).json();
  if (reply.crash) process.kill(process.pid, "SIGKILL");
  return reply;
};
"""
    with Recorder([{"crash": True}, {"ok": 2}]) as server:
        result, gateway, _ = await call(tmp_path, {"flaky": code}, "flaky", {"url": server.url})
    assert (result.content, result.is_error) == ('{"ok":2}', False)
    assert len(server.requests) == 2
    assert messages(gateway, "tool.retried") == [
        "nu-probe: probe__flaky crashed: killed by SIGKILL; it is safe to retry, so it ran again"
    ]


async def test_a_call_that_crashes_twice_is_an_error_and_runs_no_third_time(tmp_path: Path) -> None:
    code = "export default () => { process.exit(3); };"
    result, gateway, _ = await call(tmp_path, {"exits": code}, "exits", {})
    assert result.is_error
    assert result.content.startswith("probe__exits crashed: exited (status 3) without a result")
    assert codes(gateway).count("tool.retried") == 1 and "tool.crashed" in codes(gateway)
    log = (tmp_path / "home" / "logs" / "calls-nu-probe.log").read_text()
    assert log.count("probe__exits attempt") == 2


async def test_an_at_most_once_call_that_crashes_is_not_retried(tmp_path: Path) -> None:
    code = """
export default async (args) => { await fetch(args.url); process.kill(process.pid, "SIGKILL"); };
"""
    with Recorder() as server:
        result, gateway, _ = await call(
            tmp_path, {"send": code}, "send", {"url": server.url},
            tool_yaml={"send": {"idempotency": "at_most_once"}},
        )  # fmt: skip
    assert result.is_error and "killed by SIGKILL" in result.content
    assert len(server.requests) == 1
    assert "tool.retried" not in codes(gateway)


async def test_a_call_past_its_timeout_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_NU_TOOL_TIMEOUT", "1")
    code = "export default () => new Promise(() => setInterval(() => {}, 1000));"
    result, _, _ = await call(tmp_path, {"hang": code}, "hang", {})
    assert (result.content, result.is_error) == ("probe__hang timed out after 1s", True)


async def test_a_tool_whose_secret_is_not_set_fails_naming_it(tmp_path: Path) -> None:
    result, gateway, _ = await call(
        tmp_path, {"env": ENV}, "env", {}, tool_yaml={"env": {"secrets": ["API_TOKEN"]}}
    )
    assert result.is_error
    assert result.content == (
        "probe__env: secret API_TOKEN is not set (gateway secret set nu-probe NAME)"
    )
    assert "nu.secret_unset" in codes(gateway)


async def test_arguments_are_checked_against_args_schema_before_the_process_starts(
    tmp_path: Path,
) -> None:
    schema = {"type": "object", "required": ["query"], "properties": {"query": {"type": "string"}}}
    result, _, _ = await call(
        tmp_path, {"echo": ECHO}, "echo", {"query": 5},
        tool_yaml={"echo": {"args_schema": schema}},
    )  # fmt: skip
    assert result.is_error and result.content.startswith("invalid arguments for probe__echo")
    assert not (tmp_path / "home" / "logs" / "calls-nu-probe.log").exists()


async def test_large_arguments_reach_the_tool_whole(tmp_path: Path) -> None:
    code = "export default (args) => args.text.length;"
    result, _, _ = await call(tmp_path, {"size": code}, "size", {"text": "x" * 300_000})
    assert (result.content, result.is_error) == ("300000", False)


async def test_a_tool_whose_name_lacks_the_namespace_is_not_offered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = probe_package(
        tmp_path / "pkg", {"ok": "export default () => 1;", "stray": "export default () => 2;"},
        tool_yaml={"stray": {"name": "elsewhere__stray"}},
    )  # fmt: skip
    install_ready(home, source)
    (tmp_path / "ws").mkdir()
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
    ) as gateway:
        assert [t.name for t in gateway.tools()] == ["probe__ok"]


async def test_nothing_of_an_untrusted_package_runs(tmp_path: Path) -> None:
    from gateway.packages import install, load_adapters

    home = tmp_path / "home"
    source = probe_package(
        tmp_path / "pkg", {"ok": "export default () => 1;"},
        extensions={"ext": 'export default (nu) => nu.on("turn_end", () => {});'},
    )  # fmt: skip
    install(home, str(source), kind="local", inspector=load_adapters().inspect)
    (tmp_path / "ws").mkdir()
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
    ) as gateway:
        assert (gateway.tools(), gateway.processes, gateway.registry.hooks()) == ([], [], [])
        assert "gate.untrusted" in codes(gateway)


HOG = "export default () => { const kept = []; for (;;) kept.push(new Array(1e5).fill(1.5)); };"


async def test_a_call_over_its_packages_memory_limit_is_named_and_the_next_call_runs(
    tmp_path: Path,
) -> None:
    """Each call is its own Node, under the package's limits (here 256 MiB)."""
    home = tmp_path / "home"
    package = install_ready(home, probe_package(tmp_path / "pkg", {"hog": HOG, "text": TEXT}))
    write_package_config(home, package, {"$gateway": {"limits": {"memory": "256M"}}})
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        assert (await gateway.call_tool("probe__hog", {})).is_error
        said = [d for d in gateway.diagnostics if d.code == "sandbox.limit_exceeded"]
        assert said and all(d.package == package for d in said)
        assert "memory limit (256 MiB)" in said[0].message
        assert (await gateway.call_tool("probe__text", {})).content == '"plain text"'


async def test_a_traced_call_gives_its_tool_process_the_calls_trace(tmp_path: Path) -> None:
    from tests.serve._traced import by_name, traced

    with traced() as spans:
        result, _, _ = await call(tmp_path, {"env": ENV}, "env", {})
    env = json.loads(result.content)
    made = by_name(spans.get_finished_spans())["execute_tool probe__env"].get_span_context()
    flags = int(made.trace_flags)
    assert env["TRACEPARENT"] == f"00-{made.trace_id:032x}-{made.span_id:016x}-{flags:02x}"
    assert "TRACESTATE" not in env  # the call's trace has none
