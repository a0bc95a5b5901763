"""Agent Plugins in the fidelity harness: released nanobot's own plugin loader is the
reference host.

nanobot-ai 0.3.5 (PyPI) reads Agent Plugins 1.0 (``nanobot/agent/plugins.py``) and connects
their stdio MCP servers with its own MCP client (``nanobot/agent/tools/mcp.py``), which names
every tool, resource and prompt. It needs ``mcp<2`` (the gateway uses mcp 2), so it is
installed into a virtual environment of its own in the harness cache (``pip install
nanobot-ai==0.3.5``, never into the repository). The same file is both:

- imported by ``run.py`` (the gateway's Python): ``reference_python`` makes or finds that
  environment, ``host_view`` turns a result into the compared ``View``;
- run by that environment's Python as the host: ``python -P _agent_plugins.py OUT JOBS``.
  For each job it places the plugin under ``<workspace>/plugins/`` (nanobot's install
  location), enables it as ``nanobot plugins enable`` does, reads its skills, connects its
  servers into a ``ToolRegistry`` and records what registered: MCP tools and resources (both
  nanobot tools), prompts (nanobot offers them as tools too; the gateway as commands of the
  same name, docs/agent-plugins.md), skills.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

NANOBOT_AI = "nanobot-ai==0.3.5"
VENV = "nanobot-ai-0.3.5"
INSTALL_SECONDS = 1200


def reference_python(cache: Path) -> Path | str:
    """The reference host's Python (made on first use); a str says why there is none.
    Jobs run in parallel: the first makes the environment, the others wait for it."""
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / f"{VENV}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _made(cache)


def _made(cache: Path) -> Path | str:
    venv = cache / VENV
    python = venv / "bin" / "python"
    ready = venv / ".ready"
    if ready.exists() and python.exists():
        return python
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "-q", NANOBOT_AI],
            capture_output=True, text=True, timeout=INSTALL_SECONDS, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            return f"pip install {NANOBOT_AI} failed: {done.stderr[-400:]}"
        probe = subprocess.run(
            [str(python), "-c", "import nanobot.agent.plugins, nanobot.agent.tools.mcp"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        if probe.returncode != 0:
            return f"{NANOBOT_AI} does not import: {probe.stderr[-400:]}"
    except (OSError, subprocess.SubprocessError) as error:
        return f"no environment for {NANOBOT_AI}: {error}"
    ready.touch()
    return python


def host_view(result: dict[str, Any]) -> tuple[Any, bool]:
    from _compare import View  # run.py has put the harness folder on sys.path

    if "failed" in result:
        return View(errors=[result["failed"]]), False
    view = View(
        tools=set(result.get("tools", [])),
        commands=set(result.get("prompts", [])),
        skills=set(result.get("skills", [])),
    )
    view.notes += list(result.get("notes", []))
    return view, True


# --------------------------------------------------------------------------- the host


async def _one(job: dict[str, Any]) -> dict[str, Any]:
    from nanobot.agent import plugins
    from nanobot.agent.tools.mcp import (
        MCPPromptWrapper,
        _close_mcp_connections,
        connect_mcp_servers,
    )
    from nanobot.agent.tools.registry import ToolRegistry

    workspace = Path(job["cwd"]).resolve()
    source = Path(job["path"])
    shutil.copytree(source, workspace / "plugins" / source.name, symlinks=True)
    found = plugins.discover_agent_plugins(workspace)
    if not found:
        return {"failed": "nanobot 0.3.5 found no valid Agent Plugin (refused or not one)"}
    for plugin in found:
        plugins.set_agent_plugin_enabled(workspace, plugin.name, True)
    servers = plugins.agent_plugin_mcp_servers(workspace)
    skills = [name for name, _path in plugins.enabled_agent_plugin_skills(workspace)]
    registry = ToolRegistry()
    connections = await connect_mcp_servers(servers, registry)
    try:
        tools, prompts = [], []
        for definition in registry.get_definitions():
            name = definition.get("function", definition).get("name") or definition.get("name")
            wrapper = registry.get(name)
            (prompts if isinstance(wrapper, MCPPromptWrapper) else tools).append(name)
    finally:
        await _close_mcp_connections(connections)
    return {"tools": tools, "prompts": prompts, "skills": skills,
            "servers": sorted(servers)}  # fmt: skip


def _host_main(out_file: str, job_file: str) -> None:
    import asyncio
    import traceback

    results = []
    for job in json.loads(Path(job_file).read_text()):
        started = time.monotonic()
        try:
            result = asyncio.run(asyncio.wait_for(_one(job), job.get("timeout", 60)))
        except Exception:
            result = {"failed": traceback.format_exc()[-1500:]}
        result.update(key=job["key"], seconds=round(time.monotonic() - started, 2))
        results.append(result)
        Path(out_file).write_text(json.dumps(results))


if __name__ == "__main__":
    _host_main(sys.argv[1], sys.argv[2])
