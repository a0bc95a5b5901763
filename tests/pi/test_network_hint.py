"""A Pi package that has no network grant and calls out anyway: its tool's failure stays its
result, and one diagnostic says the grant is missing and the command that grants it
(``sandbox.no_network_grant``; gateway/sandbox/_unreachable.py, gateway/host/_unreachable.py).
A real package in a real confined sidecar, called through the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gateway.store import StateStore
from tests._cli_inprocess import run_gateway
from tests.sandbox.conftest import needs_landlock
from tests.serve._here import serve_here

from .conftest import install_ready

pytestmark = needs_landlock

HOST = "gateway-hint.invalid"
CODE = "sandbox.no_network_grant"

# `reach` looks a host up as pi-web-access does before it fetches and throws what failed;
# `report` returns it as its text (no error flag), as pi-web-access's fetch_content does;
# `outage` returns a lookup failure whatever the sandbox allows (a resolver that is down);
# `broken` fails with nothing to do with the network.
EXTENSION = """import { Type } from "typebox";
import { lookup } from "node:dns/promises";
async function resolve(host) {
  try { await lookup(host); return null; }
  catch (err) { return `Failed to resolve ${host}: ${err.message}`; }
}
export default function (pi) {
  const host = Type.Object({ host: Type.String() });
  pi.registerTool({ name: "reach", description: "look a host up", parameters: host,
    async execute(_id, params) {
      const failed = await resolve(params.host);
      if (failed) throw new Error(failed);
      return { content: [{ type: "text", text: "resolved" }] };
    } });
  pi.registerTool({ name: "report", description: "look a host up, say the failure",
    parameters: host,
    async execute(_id, params) {
      const failed = await resolve(params.host);
      return { content: [{ type: "text", text: failed ? `Error: ${failed}` : "resolved" }] };
    } });
  pi.registerTool({ name: "outage", description: "a resolver that is down",
    parameters: host,
    async execute(_id, params) {
      throw new Error(`getaddrinfo EAI_AGAIN ${params.host}`);
    } });
  pi.registerTool({ name: "broken", description: "fails", parameters: Type.Object({}),
    async execute() { throw new Error("bad input: no such file"); } });
}
"""


@pytest.fixture
def reacher(workspace: Any) -> Any:
    folder = workspace.root.parent / "src" / "reacher"
    folder.mkdir(parents=True)
    manifest = {"name": "reacher", "version": "1.0.0", "pi": {"extensions": ["./ext.js"]}}
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "ext.js").write_text(EXTENSION)
    assert install_ready(workspace.config.home, folder) == "reacher"
    return workspace


def _call(workspace: Any, tool: str, *extra: str, host: str = HOST) -> Any:
    arguments = json.dumps({"host": host} if tool != "broken" else {})
    return run_gateway(
        workspace.config.home, "call", tool, arguments, *extra,
        "--workspace", str(workspace.root), "--trust", user=workspace.home,
    )  # fmt: skip


def _grant(home: Path, permission: str) -> None:
    with StateStore.open(home) as store:
        store.grant("reacher", [permission], [permission])


def test_a_lookup_without_a_network_grant_names_the_command_that_grants_it(reacher):
    done = _call(reacher, "reach")
    assert done.returncode == 1
    # The tool's failure is its result, as it said it.
    assert done.stdout.startswith(f"[error] Failed to resolve {HOST}: getaddrinfo EAI_AGAIN")
    assert f"[{CODE}]" in done.stderr
    assert "reacher: its tool reach failed to reach gateway-hint.invalid" in done.stderr
    assert "  hint: gateway permissions reacher network\n" in done.stderr


def test_a_failure_returned_as_text_gets_the_hint_and_json_keeps_the_result_exact(reacher):
    done = _call(reacher, "report", "--json")
    out = json.loads(done.stdout)
    assert out["content"] == f"Error: Failed to resolve {HOST}: getaddrinfo EAI_AGAIN {HOST}"
    assert out["is_error"] is False
    (said,) = [d for d in out["diagnostics"] if d["code"] == CODE]
    assert said["package"] == "reacher"
    assert said["contribution"] == "report"
    assert said["hint"] == "gateway permissions reacher network"


def test_with_the_network_granted_a_lookup_failure_is_the_networks_own(reacher):
    _grant(reacher.config.home, "network")
    done = _call(reacher, "outage", "--json")
    out = json.loads(done.stdout)
    assert out["content"] == f"getaddrinfo EAI_AGAIN {HOST}"
    assert out["is_error"] is True
    assert CODE not in {d["code"] for d in out["diagnostics"]}


def test_with_another_host_granted_the_hint_names_this_host(reacher):
    _grant(reacher.config.home, "network:api.example.com")
    out = json.loads(_call(reacher, "reach", "--json").stdout)
    (said,) = [d for d in out["diagnostics"] if d["code"] == CODE]
    assert said["hint"] == f"gateway permissions reacher network:{HOST}"
    assert "its network grants reach api.example.com only" in said["message"]


def test_a_failure_unrelated_to_the_network_gets_no_hint(reacher):
    done = _call(reacher, "broken")
    assert done.returncode == 1
    assert done.stdout.startswith("[error] bad input: no such file")
    assert CODE not in done.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # the MCP client's
async def test_serve_says_it_in_its_log_and_keeps_the_result(reacher, anyio_backend):
    env = {key: value for key, value in os.environ.items() if key in ("PATH", "LANG", "TMPDIR")}
    env.update(GATEWAY_HOME=str(reacher.config.home), HOME=str(reacher.home))
    errlog = reacher.home / "serve-stderr.log"
    async with serve_here(
        # -v: said in full even while the runtimes warm (else one line per package then).
        ["--workspace", str(reacher.root), "--package", "reacher", "-v"],
        env=env, cwd=reacher.root, errlog=errlog,
    ) as connection:  # fmt: skip
        result = await connection.call_tool("report", {"host": HOST})
    (block,) = result.content
    assert getattr(block, "text", None) == (
        f"Error: Failed to resolve {HOST}: getaddrinfo EAI_AGAIN {HOST}"
    )
    said = [line for line in errlog.read_text().splitlines() if f"[{CODE}]" in line]
    assert len(said) == 1, errlog.read_text()
    assert said[0].startswith(f"gateway serve: warning [{CODE}] reacher: its tool report")
    assert said[0].endswith("(hint: gateway permissions reacher network)")
