"""A package that runs into its resource limits is named and stops alone: the gateway and
every other package carry on (docs/security.md, "Resource limits")."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.sandbox import detect_cgroups
from tests.sandbox.conftest import needs_landlock

pytestmark = [pytest.mark.anyio, needs_landlock]

# One extension, its tool named after it: `eat` allocates until something stops it,
# `spin` leaves four busy processes behind, `ping` answers.
EXTENSION = """\
import json, subprocess, sys

NAME = sys.argv[1]

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

send({"type": "register", "tools": [{"name": f"{NAME}_{verb}", "description": verb,
      "input_schema": {"type": "object"}} for verb in ("eat", "spin", "ping")],
      "commands": [], "events": []})
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "shutdown":
        break
    if message.get("type") != "tool":
        continue
    verb = message["name"].rsplit("_", 1)[1]
    if verb == "eat":
        chunks = []
        while True:
            chunks.append(bytearray(1 << 20))
    if verb == "spin":
        for _ in range(4):
            subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"])
    # A little work of its own, so a starved CPU would show.
    total = sum(i * i for i in range(200_000))
    send({"type": "response", "id": message["id"], "content": f"{verb} {total > 0}"})
"""


def extension(workspace: Any, name: str, limits: dict[str, Any] | None = None) -> None:
    folder = workspace.root / ".nimlet" / "extensions" / name
    folder.mkdir(parents=True)
    (folder / "ext.py").write_text(EXTENSION)
    command = [sys.executable, str(folder / "ext.py"), name]
    (folder / "extension.json").write_text(json.dumps({"name": name, "command": command}))
    if limits is not None:
        config = workspace.config.home / "config" / f"{name}.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"$gateway": {"limits": limits}}))


def codes(gateway: Any, code: str) -> list[Any]:
    return [d for d in gateway.diagnostics if d.code == code]


async def test_a_package_over_its_memory_limit_is_named_and_the_others_carry_on(workspace):
    extension(workspace, "hog", {"memory": "64M"})
    extension(workspace, "calm")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        eaten = await gateway.call_tool("hog_eat")
        assert eaten.is_error
        [said] = codes(gateway, "sandbox.limit_exceeded")
        assert said.package == "hog" and "memory limit (64 MiB)" in said.message
        assert (await gateway.call_tool("calm_ping")).content == "ping True"


async def test_a_cpu_spinner_does_not_keep_another_packages_call_from_finishing(workspace):
    """No timing is asserted: the other package's call, which needs CPU, completes while
    four processes of the spinner run flat out on two cores (and, with a cpu cgroup, at
    the weight its setting gives)."""
    extension(workspace, "spinner", {"cpu_weight": 1})
    extension(workspace, "calm")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("spinner_spin")).content == "spin True"
        with anyio.fail_after(120):
            for _ in range(3):
                assert (await gateway.call_tool("calm_ping")).content == "ping True"
        group = detect_cgroups().existing("spinner")
        if group is not None and "cpu" in group.folders:
            folder = group.folders["cpu"]
            weight = folder / ("cpu.weight" if group.version == 2 else "cpu.shares")
            assert weight.read_text().strip() == ("1" if group.version == 2 else "10")


async def test_a_limit_that_cannot_be_used_is_said_and_the_package_runs(workspace):
    extension(workspace, "odd", {"memory": "lots"})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("odd_ping")).content == "ping True"
        [said] = codes(gateway, "sandbox.limits_invalid")
        assert said.package == "odd" and "memory" in said.message


def per_call_tool(workspace: Any, name: str, body: str, limits: dict[str, Any]) -> None:
    """A tool.json tool: one process per call, its limits its own (by its name)."""
    folder = workspace.root / ".nimlet" / "tools" / name
    folder.mkdir(parents=True)
    script = folder / "tool.py"
    script.write_text(f"#!{sys.executable}\n{body}")
    script.chmod(0o755)
    manifest = {"name": name, "description": name, "command": ["./tool.py"],
                "input_schema": {"type": "object"}}  # fmt: skip
    (folder / "tool.json").write_text(json.dumps(manifest))
    config = workspace.config.home / "config" / f"{name}.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"$gateway": {"limits": limits}}))


async def test_a_per_call_tool_over_its_memory_limit_is_named_too(workspace):
    eat = "chunks = []\nwhile True:\n    chunks.append(bytearray(1 << 20))\n"
    per_call_tool(workspace, "glutton", eat, {"memory": "64M"})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("glutton")).is_error
        [said] = codes(gateway, "sandbox.limit_exceeded")
        assert said.package == "glutton" and "memory limit (64 MiB)" in said.message


async def test_an_unusable_limit_is_said_once_however_many_calls_start(workspace):
    per_call_tool(workspace, "odd_tool", 'print("{}")\n', {"pids": "many"})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        for _ in range(3):
            assert (await gateway.call_tool("odd_tool")).content == "{}"
        [said] = codes(gateway, "sandbox.limits_invalid")
        assert said.package == "odd_tool" and "pids" in said.message
