"""Extensions written the current nimlet way, added to a throwaway workspace: in memory
(``fixtures/memory_current.py``, the default, for the host's handling of each message) or
as real processes (``fixtures/current_extension.py`` and its JavaScript twin, in
``test_real_processes.py``, where the pipes are what is tested). Async tests run on both
backends on a virtual clock (``tests/_clock.py``): their timeouts and steps' sleeps take no
real time."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway.runtime import find_node
from tests._clock import virtual_time  # noqa: F401  (every async test here: virtual time)

from ..conftest import Workspace

FIXTURES = Path(__file__).parent / "fixtures"

OBJECT = {"type": "object"}


def tool(name: str, capabilities: Any = "omit", **extra: Any) -> dict[str, Any]:
    """A tool spec as a current extension registers it (its ``script`` argument says
    what the call does)."""
    spec: dict[str, Any] = {"name": name, "description": f"tool {name}", "input_schema": OBJECT}
    if capabilities != "omit":
        spec["capabilities"] = capabilities
    return {**spec, **extra}


def add_current(
    workspace: Workspace,
    name: str,
    *,
    language: str = "python",
    timeout: int | str | None = "default",
    folder: str | None = None,
    **config: Any,
) -> Path:
    """Write a current-style extension under the workspace's ``.nimlet/extensions``
    (``memory``: run in memory by the workspace's transport; ``python``, ``node``: a real
    process); returns the path of the log of what it received."""
    directory = workspace.root / ".nimlet/extensions" / (folder or name)
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / "received.jsonl"
    config.setdefault("log", str(log))
    (directory / "config.json").write_text(json.dumps(config))
    if language == "memory":
        command = [sys.executable, str(FIXTURES / "memory_current.py")]
    elif language == "python":
        command = [sys.executable, str(FIXTURES / "current_extension.py")]
    else:
        node = find_node()
        assert node, "node is needed for the JavaScript cases"
        command = [node, str(FIXTURES / "current_extension.mjs")]
    manifest: dict[str, Any] = {"name": name, "command": [*command, str(directory / "config.json")]}
    if timeout != "default":
        manifest["response_timeout_seconds"] = timeout
    (directory / "extension.json").write_text(json.dumps(manifest))
    workspace.logs[name] = log
    return log


def reply(**fields: Any) -> list[dict[str, Any]]:
    """A script that only replies."""
    return [{"reply": fields}]


def script(*steps: dict[str, Any]) -> dict[str, Any]:
    """Tool arguments carrying a script."""
    return {"script": list(steps)}


@pytest.fixture
def current(workspace: Workspace) -> Any:
    """``current(name, **config)``: a current-style extension, in memory unless
    ``language`` says otherwise."""

    def add(name: str, **config: Any) -> Path:
        config.setdefault("language", "memory")
        return add_current(workspace, name, **config)

    return add
