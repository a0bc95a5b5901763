"""Builders for the nanobot runtime tests: packages, installed-and-ready homes, a raw
sidecar driver (the protocol without the gateway), and the CLI as a subprocess."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from adapters.nanobot import SIDECAR_COMMAND
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests._cli_inprocess import run_gateway

FEATURES = {"version": 1, "features": ["register.diagnostics"]}


def write_package(
    root: Path,
    package_id: str,
    files: dict[str, str] | str,
    *,
    entry: str | None = "extension:register",
    entries: list[str] | None = None,
    tools: Iterable[str] = (),
    commands: Iterable[str] = (),
    hooks: Iterable[str] = (),
    extra: Iterable[dict[str, Any]] = (),
    replaces: dict[str, list[str]] | None = None,
    permissions: Iterable[str] = (),
    dependencies: Iterable[dict[str, Any]] = (),
) -> Path:
    """A ``runtime: python`` nanobot package; ``files`` as a str is ``extension.py``."""
    replaces = replaces or {}

    def contribution(kind: str, name: str) -> dict[str, Any]:
        item: dict[str, Any] = {"kind": kind, "name": name, "description": f"{kind} {name}"}
        if name in replaces:
            item["replaces"] = replaces[name]
        return item

    manifest: dict[str, Any] = {
        "id": package_id,
        "name": package_id,
        "version": "1.0.0",
        "apiVersion": 1,
        "runtime": "python",
        "contributions": [
            *(contribution("tool", n) for n in tools),
            *(contribution("command", n) for n in commands),
            *(contribution("hook", n) for n in hooks),
            *extra,
        ],
        "permissions": [{"name": p, "reason": f"the tests need {p}"} for p in permissions],
        "dependencies": list(dependencies),
    }
    if entries is not None:
        manifest["entries"] = entries
    elif entry is not None:
        manifest["entry"] = entry
    root.mkdir(parents=True, exist_ok=True)
    (root / "nanobot.extension.json").write_text(json.dumps(manifest, indent=2))
    for rel, text in ({"extension.py": files} if isinstance(files, str) else files).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def install_ready(
    home: Path, source: Path, *, trust: bool = True, grant: bool = True, enable: bool = True
) -> str:
    """Install ``source`` into the gateway home and pass the chosen gates; returns the id."""
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.to_dict()["id"]
    with StateStore.open(home) as store:
        wanted = [p.name for p in load_adapters().inspect(store.get_package(package_id).record.path)
                  .permissions]  # fmt: skip
        if grant and wanted:
            store.grant(package_id, wanted, wanted)
        store.set_trusted(package_id, trust)
        store.set_enabled(package_id, enable)
    return package_id


def codes(diagnostics: Iterable[Any]) -> list[str]:
    return [d["code"] if isinstance(d, dict) else d.code for d in diagnostics]


def child_env(**extra: str) -> dict[str, str]:
    env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
    env.update(extra)
    return env


class Sidecar:
    """The sidecar driven over its stdio, line by line, as the gateway would."""

    def __init__(
        self,
        *roots: Path,
        data_dir: Path,
        config: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        workspace: Path | None = None,
        features: bool = True,
        gateway: dict[str, Any] | None = None,
    ) -> None:
        command = [*SIDECAR_COMMAND, "--data-dir", str(data_dir)]
        for root in roots:
            command += ["--package", str(root)]
        for package, value in (config or {}).items():
            # One file per package, as the gateway passes them; a str is written as is.
            path = data_dir.parent / "config" / f"{package}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(value if isinstance(value, str) else json.dumps(value))
            command += ["--config-file", f"{package}={path}"]
        self.workspace = workspace or data_dir.parent
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env or child_env(),
            cwd=self.workspace,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: list[bytes] = []
        self._threads = [
            threading.Thread(target=self._pump, daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        initialize: dict[str, Any] = {
            "type": "initialize",
            "version": 1,
            "workspace": str(self.workspace),
            "session_id": "s1",
        }
        if features:
            initialize["gateway"] = gateway or FEATURES
        self.send(initialize)

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)

    @property
    def log(self) -> str:
        return b"".join(self.stderr).decode(errors="replace")

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def read(self, timeout: float = 15.0) -> dict[str, Any]:
        """The next line, which must be JSON (anything else fails the test)."""
        line = self.lines.get(timeout=timeout)
        assert line is not None, f"sidecar closed stdout; log:\n{self.log}"
        return json.loads(line)

    def register(self) -> dict[str, Any]:
        message = self.read()
        assert message["type"] == "register", message
        return message

    def request(self, message: dict[str, Any], timeout: float = 15.0) -> dict[str, Any]:
        self.send(message)
        reply = self.read(timeout)
        assert reply.get("id") == message["id"], reply
        return reply

    def tool(self, rid: str, name: str, **arguments: Any) -> dict[str, Any]:
        return self.request({"type": "tool", "id": rid, "name": name, "arguments": arguments})

    def command(self, rid: str, name: str, arguments: str = "") -> dict[str, Any]:
        return self.request({"type": "command", "id": rid, "name": name, "arguments": arguments})

    def event(self, rid: str, event: str, **payload: Any) -> dict[str, Any]:
        payload.setdefault("session_id", "s1")
        payload.setdefault("workspace", str(self.workspace))
        return self.request({"type": "event", "id": rid, "event": event, "payload": payload})

    def close(self, timeout: float = 10.0) -> int:
        if self.process.poll() is None:
            try:
                self.send({"type": "shutdown"})
                assert self.process.stdin is not None
                self.process.stdin.close()
            except (OSError, ValueError):  # already closed
                pass
        try:
            return self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for thread in self._threads:  # they end at end of file, then the pipes close
                thread.join(5)
            for pipe in (self.process.stdout, self.process.stderr):
                if pipe is not None:
                    pipe.close()

    def __enter__(self) -> Sidecar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def cli(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` in this process (tests/_cli_inprocess.py) with GATEWAY_HOME and HOME
    in the test's temporary folder and ``env`` added; the sidecars it starts are real."""
    user = home.parent / "user"
    user.mkdir(exist_ok=True)
    return run_gateway(home, *args, user=user, env=env)


def cli_process(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` as a real subprocess: where the gateway's own interpreter must see
    ``env`` (a ``PYTHONPATH`` that finds a package's declared Python dependency)."""
    user = home.parent / "user"
    user.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    base.update(GATEWAY_HOME=str(home), HOME=str(user), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args],
        capture_output=True,
        text=True,
        env=base,
        cwd=user,
        timeout=120,
    )


def cli_json(
    home: Path, *args: str, code: int = 0, env: dict[str, str] | None = None, process: bool = False
) -> Any:
    """``--json`` output of ``gateway ARGS`` (``process``: in a subprocess, ``cli_process``)."""
    done = (cli_process if process else cli)(home, *args, "--json", env=env)
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)


ECHO = """
import asyncio, os, sys

class Tool:
    description = "a test tool"
    parameters = {"type": "object", "properties": {"text": {"type": "string"},
                  "seconds": {"type": "number"}}}
    read_only = False

    def __init__(self, name, run):
        self.name, self._run = name, run

    async def execute(self, **kwargs):
        return await self._run(**kwargs)

async def echo(text="", **_):
    print("printed by", text)  # stdout of the package: must not break the protocol
    return "@ID@:" + text

async def slow(seconds=30, **_):
    await asyncio.sleep(seconds)
    return "slow done"

async def crash(**_):
    os._exit(7)

async def env(text="", **_):
    return os.environ.get(text, "<unset>")

TOOLS = {"echo": echo, "slow": slow, "crash": crash, "env": env}

def register(api):
    for name in @TOOLS@:
        api.register_tool(Tool(f"{name}_@SUFFIX@", TOOLS[name]))
"""


def echo_package(
    src: Path, package_id: str, suffix: str, tools: tuple[str, ...] = ("echo",), **manifest: Any
) -> Path:
    source = (
        ECHO.replace("@ID@", package_id)
        .replace("@SUFFIX@", suffix)
        .replace("@TOOLS@", repr(list(tools)))
    )
    return write_package(
        src / package_id, package_id, source, tools=[f"{t}_{suffix}" for t in tools], **manifest
    )


ECHO_TOOL = """
class Echo:
    description = "echo"
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}}

    def __init__(self, name, reply):
        self.name, self.reply = name, reply

    async def execute(self, text=""):
        return f"{self.reply}:{text}"
"""


def load(tmp_path: Path, *roots: Path, **options: object) -> tuple[dict, Sidecar]:
    sidecar = Sidecar(*roots, data_dir=tmp_path / "data", **options)  # type: ignore[arg-type]
    return sidecar.register(), sidecar


def set_package(home: Path, package_id: str, **changes: bool) -> None:
    """Enable/disable or trust/untrust an installed package in the state store."""
    with StateStore.open(home) as store:
        if "enabled" in changes:
            store.set_enabled(package_id, changes["enabled"])
        if "trusted" in changes:
            store.set_trusted(package_id, changes["trusted"])
