"""A gateway home holding one package of each kind a server carries — a Pi package, a
nanobot package and a nimlet extension — installed and past their four gates, and the
environment a served gateway (a child process) needs to find it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from adapters.pi import find_node, sidecar_ready
from gateway.packages import install, load_adapters
from gateway.sandbox import package_dirs
from gateway.store import StateStore

MCP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
"""An MCP client's HTTP timeouts, as the MCP SDK's transports default them: a served
gateway may hold a response stream open."""

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURES = HERE / "fixtures"
PI = FIXTURES / "pi-tickets"
NIMLET = FIXTURES / "nimlet-desk"
NANOBOT = REPO / "examples" / "packages" / "acme-review"
GATEWAY = [sys.executable, "-m", "gateway"]
"""The CLI of this checkout, whatever is on PATH."""
IDS = {"pi": "pi-tickets", "nanobot": "acme.review", "nimlet": "desk"}


def need_sidecar() -> None:
    problem = sidecar_ready() or (None if find_node() else "no Node >= 22.19")
    if problem:
        pytest.skip(f"the Node sidecar is not available: {problem}")


@dataclass
class Served:
    home: Path
    workspace: Path
    log: Path

    def env(self, **extra: str) -> dict[str, str]:
        """What a served gateway started as a child sees: this home, and the variables the
        fixtures use passed through to the packages."""
        env = {
            key: value
            for key, value in os.environ.items()
            if key in ("PATH", "HOME", "LANG", "TMPDIR", "GATEWAY_NODE", "GATEWAY_SIDECAR_DIR")
        }
        env.update(GATEWAY_HOME=str(self.home), DESK_LOG=str(self.log),
                   GATEWAY_PASSTHROUGH_ENV="DESK_LOG")  # fmt: skip
        env.update(extra)
        return env

    def received(self) -> list[dict]:
        import json

        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


def install_ready(home: Path, folder: Path, *, trusted: bool = True) -> str:
    """``gateway install FOLDER``, then grant what it asks, trust and enable it."""
    report = install(home, str(folder), kind="local", inspector=load_adapters().inspect)
    record = report.package.record
    wanted = [p.name for p in report.entry.permissions]
    with StateStore.open(home) as store:
        store.grant(record.id, wanted, wanted)
        store.set_trusted(record.id, trusted)
        store.set_enabled(record.id, True)
    return record.id


def served_home(tmp_path: Path, *, kinds: tuple[str, ...] = ("pi", "nanobot", "nimlet")) -> Served:
    home = tmp_path / "gateway-home"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "README.md").write_text("a project\n")
    folders = {"pi": PI, "nanobot": NANOBOT, "nimlet": NIMLET}
    for kind in kinds:
        install_ready(home, folders[kind])
    with StateStore.open(home) as store:  # each one's hooks change another one's tool
        for kind in kinds:
            store.grant(IDS[kind], ["hooks.rewrite"], ["hooks.rewrite"])
    # Where the confined desk extension may write: its data folder in this home.
    return Served(home, workspace, package_dirs(home, IDS["nimlet"])[0] / "received.jsonl")


def reap(process: subprocess.Popen[Any], timeout: float = 20) -> int:
    """The process's exit status within ``timeout``; past it the process is killed and
    reaped before ``TimeoutExpired`` is raised (a Popen left running warns when collected,
    and the warning fails whichever test the worker runs next)."""
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


def terminate(process: subprocess.Popen[Any], timeout: float = 20) -> int:
    """SIGTERM, then ``reap``."""
    process.send_signal(signal.SIGTERM)
    return reap(process, timeout)


def create_token(env: dict[str, str], name: str, *extra: str) -> str:
    """``gateway token create NAME --json EXTRA`` for the home ``env`` names: its token. In
    this process outside an event loop (``tests._cli.run_gateway``)."""
    import json

    from tests._cli import run_gateway

    made = run_gateway(["token", "create", name, "--json", *extra], env=env, cwd=Path(env["HOME"]))
    assert made.returncode == 0, made.stderr
    return str(json.loads(made.stdout)["token"])
