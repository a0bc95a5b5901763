"""What opening a gateway does for the sandbox: said once, the gateway non-dumpable, its
children confined unless switched off (docs/security.md)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway import HomeUnusable, open_gateway
from tests.sandbox.conftest import needs_landlock

pytestmark = pytest.mark.anyio

# Reads the gateway home's secret file from inside an extension: the sandbox must refuse.
SNOOP = """\
import json, sys
try:
    open(sys.argv[1]).read()
    found = "read"
except OSError as error:
    found = type(error).__name__
sys.stdout.write(json.dumps({"type": "register", "tools": [{"name": "snoop",
    "description": found, "input_schema": {"type": "object"}}], "commands": [],
    "events": []}) + "\\n")
sys.stdout.flush()
for line in sys.stdin:
    if json.loads(line).get("type") == "shutdown":
        break
"""


def snooping(workspace, secret: Path) -> None:  # type: ignore[no-untyped-def]
    folder = workspace.root / ".nimlet" / "extensions" / "snoop"
    folder.mkdir(parents=True)
    (folder / "snoop.py").write_text(SNOOP)
    command = [sys.executable, str(folder / "snoop.py"), str(secret)]
    (folder / "extension.json").write_text(json.dumps({"name": "snoop", "command": command}))


_HIDDEN = "FileNotFoundError"


def secret_in_home(workspace) -> Path:  # type: ignore[no-untyped-def]
    secret = workspace.home / ".ssh" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text("PRIVATE KEY")
    return secret


@needs_landlock
async def test_an_extension_cannot_read_the_users_home(workspace):
    snooping(workspace, secret_in_home(workspace))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        # Refused, or hidden by its private /tmp (the test's home is there); the control
        # below, switched off, reads it.
        assert gateway.registry.tool("snoop").description in ("PermissionError", _HIDDEN)
        assert "sandbox.off" not in {d.code for d in gateway.diagnostics}


async def test_switched_off_it_runs_unconfined_and_says_so_once(workspace):
    snooping(workspace, secret_in_home(workspace))
    config = dataclasses.replace(workspace.config, sandbox=False)
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("snoop").description == "read"
        assert [d.code for d in gateway.diagnostics].count("sandbox.off") == 1


@needs_landlock
async def test_requiring_the_sandbox_wins_over_switching_it_off(workspace):
    snooping(workspace, secret_in_home(workspace))
    config = dataclasses.replace(workspace.config, sandbox=False, require_sandbox=True)
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        # Refused, or hidden by its private /tmp (the test's home is there); the control
        # below, switched off, reads it.
        assert gateway.registry.tool("snoop").description in ("PermissionError", _HIDDEN)
        assert "sandbox.off" not in {d.code for d in gateway.diagnostics}


async def test_a_gateway_home_that_is_a_file_raises_home_unusable(workspace):
    workspace.config.home.parent.mkdir(parents=True, exist_ok=True)
    if workspace.config.home.exists():
        import shutil

        shutil.rmtree(workspace.config.home)
    workspace.config.home.write_text("not a folder")
    with pytest.raises(HomeUnusable, match="is not a folder"):
        async with open_gateway(
            workspace.root, trust=True, config=workspace.config, transport=workspace.transport
        ):
            pass


def test_opening_a_gateway_makes_the_process_undumpable(tmp_path: Path) -> None:
    script = f"""
import anyio, json
from pathlib import Path
from gateway import GatewayConfig, open_gateway
from gateway.sandbox import is_dumpable
before = is_dumpable()
async def main():
    async with open_gateway({str(tmp_path)!r}, trust=False,
                            config=GatewayConfig(home=Path({str(tmp_path / "home")!r}))):
        pass
anyio.run(main)
print(json.dumps([before, is_dumpable()]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)  # fmt: skip
    assert json.loads(done.stdout) == [True, False]
