"""What the sidecar gives a nanobot package beyond its tools: metadata-only contributions,
the api's extras (config, data dir, logger, workspace), late registrations, and nanobot's
Tool with and without nanobot-ai."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from ._helpers import child_env, codes, load, write_package

METADATA_KINDS = ["skill", "channel", "llm_provider", "transcription_provider",
                  "image_generation_provider", "web_search_provider", "mcp_server", "webui"]  # fmt: skip


def test_contributions_the_gateway_cannot_run_are_reported_metadata_only(tmp_path: Path) -> None:
    extra = [{"kind": kind, "name": f"my-{kind.replace('_', '-')}"} for kind in METADATA_KINDS]
    package = write_package(tmp_path / "p", "test.meta", "def register(api): pass\n", extra=extra)
    register, sidecar = load(tmp_path, package)
    with sidecar:
        reported = register["gateway"]["diagnostics"]
    assert codes(reported) == ["nanobot.contribution_metadata_only"] * len(METADATA_KINDS)
    assert [d["contribution"] for d in reported] == [e["name"] for e in extra]
    assert "is metadata only" in reported[1]["message"]


API_EXTRAS = """
import os, stat

class Report:
    name = "report"
    description = "what the api gave"
    parameters = {"type": "object", "properties": {}}

    def __init__(self, api):
        self.api = api

    async def execute(self):
        api = self.api
        api.logger.info("hello from the package logger")
        (api.data_dir / "state.txt").write_text("kept")
        return {
            "id": api.id,
            "config": dict(api.config),
            "data_dir": str(api.data_dir),
            "mode": oct(stat.S_IMODE(os.stat(api.data_dir).st_mode)),
            "workspace": str(api.workspace),
            "logger": api.logger.name,
        }

def register(api):
    api.register_tool(Report(api))
    try:
        api.config["x"] = 1  # read-only
    except TypeError:
        pass
"""


def test_the_api_gives_config_a_private_data_dir_a_logger_and_the_workspace(
    tmp_path: Path,
) -> None:
    package = write_package(tmp_path / "p", "test.api", API_EXTRAS, tools=["report"])
    config = {"test.api": {"level": 3, "names": ["a"]}, "other.pkg": {"x": 1}}
    register, sidecar = load(tmp_path, package, config=config)
    with sidecar:
        assert register["gateway"]["diagnostics"] == []
        found = json.loads(sidecar.tool("1", "report")["content"])
        sidecar.close()
        log = sidecar.log
    assert found["id"] == "test.api" and found["config"] == {"level": 3, "names": ["a"]}
    assert found["data_dir"] == str(tmp_path / "data" / "test.api")
    assert found["mode"] == "0o700"
    assert stat.S_IMODE((tmp_path / "data" / "test.api").stat().st_mode) == 0o700
    assert (tmp_path / "data" / "test.api" / "state.txt").read_text() == "kept"
    assert found["workspace"] == str(tmp_path)
    assert "hello from the package logger" in log and found["logger"] in log


def test_registering_after_register_returned_is_ignored(tmp_path: Path) -> None:
    source = API_EXTRAS + (
        "class Later(Report):\n"
        "    name = 'later'\n"
        "    async def execute(self):\n"
        "        self.api.register_tool(Report(self.api))  # too late\n"
        "        return 'tried'\n"
        "_original = register\n"
        "def register(api):\n"
        "    _original(api)\n"
        "    api.register_tool(Later(api))\n"
    )
    package = write_package(tmp_path / "p", "test.late", source, tools=["report", "later"])
    _register, sidecar = load(tmp_path, package)
    with sidecar:
        assert sidecar.tool("1", "later")["content"] == "tried"
        sidecar.close()
    assert "register_tool after register() returned; ignored" in sidecar.log


@pytest.mark.parametrize(
    "config", [{"test.cfg": [1, 2]}, {"test.cfg": "{not json"}], ids=["not-an-object", "not-json"]
)
def test_invalid_config_is_a_diagnostic_and_an_empty_config(tmp_path: Path, config: object) -> None:
    package = write_package(tmp_path / "p", "test.cfg", API_EXTRAS, tools=["report"])
    register, sidecar = load(tmp_path, package, config=config)
    with sidecar:
        assert codes(register["gateway"]["diagnostics"]) == ["nanobot.config_invalid"]
        assert json.loads(sidecar.tool("1", "report")["content"])["config"] == {}


WHICH_NANOBOT = """
import nanobot
from nanobot.agent.tools.base import Tool, ToolResult, tool_parameters
from nanobot.agent.hook import AgentHook, AgentHookContext


@tool_parameters({"type": "object", "properties": {"n": {"type": "integer"}}})
class Which(Tool):
    @property
    def name(self):
        return "which"

    @property
    def description(self):
        return "which nanobot is in use"

    async def execute(self, n=0):
        return {
            "shim": getattr(nanobot, "__gateway_shim__", False),
            "marker": getattr(nanobot, "MARKER", None),
            "module": Tool.__module__,
            "n": n,
            "schema": self.to_schema()["function"]["name"],
            "error": ToolResult.error("e").is_error,
        }


def register(api):
    api.register_tool(Which())
"""

FAKE_NANOBOT = {
    "nanobot/__init__.py": "MARKER = 'installed nanobot-ai'\n",
    "nanobot/agent/__init__.py": "",
    "nanobot/agent/hook.py": "class AgentHook:\n    pass\nclass AgentHookContext:\n    pass\n",
    "nanobot/agent/tools/__init__.py": "",
    "nanobot/agent/tools/base.py": (
        "from abc import ABC, abstractmethod\n"
        "class Tool(ABC):\n"
        "    parameters = {}\n"
        "    @abstractmethod\n"
        "    async def execute(self, **kwargs): ...\n"
        "    def to_schema(self):\n"
        "        return {'function': {'name': self.name}}\n"
        "class ToolResult(str):\n"
        "    is_error = False\n"
        "    @classmethod\n"
        "    def error(cls, text):\n"
        "        r = cls(text); r.is_error = True; return r\n"
        "def tool_parameters(schema):\n"
        "    def decorate(cls):\n"
        "        cls.parameters = property(lambda self: dict(schema))\n"
        "        return cls\n"
        "    return decorate\n"
    ),
}


def test_the_tool_base_works_without_nanobot_ai(tmp_path: Path) -> None:
    package = write_package(tmp_path / "p", "test.which", WHICH_NANOBOT, tools=["which"])
    _register, sidecar = load(tmp_path, package)
    with sidecar:
        found = json.loads(sidecar.tool("1", "which", n="7")["content"])
    assert found == {"shim": True, "marker": None, "module": "nanobot.agent.tools.base", "n": 7,
                     "schema": "which", "error": True}  # fmt: skip


def test_the_real_nanobot_ai_is_used_when_installed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    for rel, text in FAKE_NANOBOT.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    package = write_package(tmp_path / "p", "test.which", WHICH_NANOBOT, tools=["which"])
    _register, sidecar = load(tmp_path, package, env=child_env(PYTHONPATH=str(site)))
    with sidecar:
        found = json.loads(sidecar.tool("1", "which", n=7)["content"])
    assert found["shim"] is False and found["marker"] == "installed nanobot-ai"
    assert found["module"] == "nanobot.agent.tools.base" and found["n"] == 7
