"""Shared fixtures: a throwaway workspace and home, and scripted extensions — in memory (the
default: tests of the host's logic) or as real processes in Python and JS."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gateway import GatewayConfig
from gateway.runtime import find_node
from gateway.sandbox import package_dirs
from gateway.wire import Transport
from tests._backends import asyncio_only  # noqa: F401  (the default: see tests/_backends.py)
from tests._memory import TRANSPORT

FIXTURES = Path(__file__).parent / "fixtures"
LANGUAGES = ("python", "node")
"""The real scripted extensions: where a child's pipes matter."""


@dataclass
class Workspace:
    root: Path
    home: Path
    config: GatewayConfig
    logs: dict[str, Path] = field(default_factory=dict)
    transport: Transport = TRANSPORT
    """Open gateways with it: a ``memory`` extension runs in memory, anything else as a
    process."""

    def add_extension(
        self,
        name: str,
        *,
        language: str = "memory",
        root: str = ".nimlet/extensions",
        folder: str | None = None,
        timeout: int | str | None = "default",
        **behaviour: Any,
    ) -> Path:
        """Write a scripted extension (``memory``: run in memory by ``transport``;
        ``python``, ``node``: a real process); returns the path of its message log."""
        base = (self.home if root.startswith("~/") else self.root) / root.removeprefix("~/")
        directory = base / (folder or name)
        directory.mkdir(parents=True, exist_ok=True)
        # Where a confined extension may write: its data folder under GATEWAY_HOME.
        data, _ = package_dirs(self.config.home, name)
        log = data / f"received-{folder or name}-{root.strip('~/.').replace('/', '-')}.jsonl"
        behaviour.setdefault("log", str(log))
        (directory / "config.json").write_text(json.dumps(behaviour))
        if language == "memory":
            command = [sys.executable, str(FIXTURES / "memory_scripted.py")]
        elif language == "python":
            command = [sys.executable, str(FIXTURES / "scripted_extension.py")]
        else:
            node = find_node()
            assert node, "node is needed for the JavaScript conformance cases"
            command = [node, str(FIXTURES / "scripted_extension.mjs")]
        manifest: dict[str, Any] = {
            "name": name,
            "command": [*command, str(directory / "config.json")],
        }
        if timeout != "default":
            manifest["response_timeout_seconds"] = timeout
        (directory / "extension.json").write_text(json.dumps(manifest))
        self.logs[name] = log
        return log

    def received(self, name: str) -> list[dict[str, Any]]:
        log = self.logs[name]
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    config = GatewayConfig(
        home=home / ".gateway", user_home=home, shutdown_grace=0.3, term_grace=0.5
    )
    yield Workspace(root, home, config)


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> str:
    return request.param
