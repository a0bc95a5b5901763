"""Builders for the Agent Plugins tests: plugins written into a temporary folder, the
fixture plugin's servers, and the plugin host driven over its stdio as the gateway would."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from adapters._host_plan import HOST_COMMAND
from gateway.base.agent_plugins import MCP_SCHEMA_ID, PLUGIN_SCHEMA_ID
from tests._lite_mcp import script

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "agent-plugins" / "demo"
CALC = DEMO / "servers" / "calc.py"
BROKEN = DEMO / "servers" / "broken.py"
CALC_LITE = script("""
    import os

    server = Server("calc")


    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> str:
        return str(a + b)


    @server.tool(description="Echo text back; fail when asked to, sleep when asked to.")
    def echo(text: str, ctx: Context, fail: bool = False, sleep: float = 0.0) -> str:
        if fail:
            raise ToolError(f"echo refused {text!r}")
        if sleep:
            ctx.report_progress(0.5, 1.0, "halfway")
            if ctx.cancelled.wait(sleep):
                with open(os.path.join(os.environ["PLUGIN_DATA"], "cancelled"), "w") as handle:
                    handle.write("cancelled")
        where = f"root={os.environ.get('PLUGIN_ROOT')} data={os.environ.get('PLUGIN_DATA')}"
        return f"{text} ({os.environ.get('CALC_GREETING', '')}; {where}; cwd={os.getcwd()})"


    @server.prompt(description="Ask for a review of a topic.")
    def review(topic: str, tone: str = "kind") -> str:
        return f"Please review {topic} in a {tone} tone."


    @server.resource("calc://constants", name="constants", description="Useful constants.")
    def constants() -> str:
        return "pi=3.14159"


    server.run()
""")
"""The demo plugin's ``calc.py`` (built on the MCP SDK's server: the contract, run by
test_plugin_host.py and test_cli.py) as a standard-library script (``tests/_lite_mcp``): the
same tools, prompt and resource, for the tests whose subject is not the server."""


def lite_calc(folder: Path, name: str = "calc.py") -> Path:
    """``CALC_LITE`` written to ``folder/name``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(CALC_LITE)
    return folder / name


ALL_FEATURES = ["register.diagnostics", "tool.parts", "tool.progress", "update.diagnostics"]


def write_plugin(
    root: Path,
    manifest: dict[str, Any] | None = None,
    servers: dict[str, Any] | None = None,
    skills: dict[str, str] | None = None,
    *,
    mcp: dict[str, Any] | None = None,
) -> Path:
    """A plugin at ``root``: ``manifest`` over a valid one named after the folder,
    ``servers`` as mcp.json's ``mcpServers`` (or the whole ``mcp`` document), ``skills``
    as folder name -> SKILL.md text."""
    root.mkdir(parents=True, exist_ok=True)
    document = {"$schema": PLUGIN_SCHEMA_ID, "name": root.name, **(manifest or {})}
    (root / "plugin.json").write_text(json.dumps(document))
    if mcp is None and servers is not None:
        mcp = {"$schema": MCP_SCHEMA_ID, "mcpServers": servers}
    if mcp is not None:
        (root / "mcp.json").write_text(json.dumps(mcp))
    for name, text in (skills or {}).items():
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(text)
    return root


def skill_text(name: str, description: str = "Does a thing.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nThe body of {name}.\n"


def host_config(
    path: Path,
    data: Path,
    servers: dict[str, dict[str, Any]],
    package: str = "demo-plugin",
    tool_names: str = "nanobot",
) -> Path:
    """A plugin host configuration, as the adapter's launch planning writes it."""
    data.mkdir(parents=True, exist_ok=True)
    filled = {
        name: {
            "command": sys.executable,
            "env": {"PLUGIN_ROOT": str(DEMO), "PLUGIN_DATA": str(data)},
            "cwd": str(data),
            **server,
        }
        for name, server in servers.items()
    }
    document = {"package": package, "root": str(DEMO), "data_dir": str(data),
                "servers": filled, "tool_names": tool_names, "hooks": None}  # fmt: skip
    path.write_text(json.dumps(document))
    return path


def initialize_message(config: Path, features: list[str] | None) -> dict[str, Any]:
    """The gateway's ``initialize`` to a host run on ``config`` (``features``: the negotiated
    ones; None: a plain nimlet host's, none)."""
    initialize: dict[str, Any] = {"type": "initialize", "version": 1,
                                  "workspace": str(config.parent), "session_id": "s1"}  # fmt: skip
    if features is not None:
        initialize["gateway"] = {"version": 1, "features": features}
    return initialize


class Host:
    """The plugin host over its stdio, line by line."""

    def __init__(self, config: Path, features: list[str] | None = ALL_FEATURES) -> None:
        env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG", "TMPDIR") if k in os.environ}
        self.process = subprocess.Popen(
            [*HOST_COMMAND, "--config", str(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=config.parent,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: list[bytes] = []
        self.updates: list[dict[str, Any]] = []
        self._threads = [
            threading.Thread(target=self._pump, daemon=True),
            threading.Thread(target=self._drain, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self.send(initialize_message(config, features))

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

    def read(self, timeout: float = 30.0) -> dict[str, Any]:
        line = self.lines.get(timeout=timeout)
        assert line is not None, f"the host closed stdout; log:\n{self.log}"
        message: dict[str, Any] = json.loads(line)
        return message

    def reply(self, request_id: str, timeout: float = 30.0) -> dict[str, Any]:
        """The response to ``request_id``; other lines (updates) are kept in ``updates``."""
        while True:
            message = self.read(timeout)
            if message.get("type") == "response" and message.get("id") == request_id:
                return message
            self.updates.append(message)

    def tool(self, rid: str, name: str, **arguments: Any) -> dict[str, Any]:
        self.send({"type": "tool", "id": rid, "name": name, "arguments": arguments})
        return self.reply(rid)

    def command(self, rid: str, name: str, arguments: str = "") -> dict[str, Any]:
        self.send({"type": "command", "id": rid, "name": name, "arguments": arguments})
        return self.reply(rid)

    def close(self, timeout: float = 15.0) -> int:
        if self.process.poll() is None:
            try:
                self.send({"type": "shutdown"})
                assert self.process.stdin is not None
                self.process.stdin.close()
            except (OSError, ValueError):
                pass
        try:
            return self.process.wait(timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for thread in self._threads:
                thread.join(5)
            for pipe in (self.process.stdout, self.process.stderr):
                if pipe is not None:
                    pipe.close()

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
