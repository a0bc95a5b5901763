"""``gateway audit`` knows Agent Plugins: the agent-plugins host column, the gateway's own
column for its skills and servers, and nanobot's (which reads Agent Plugins too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.audit import HOSTS, audit
from gateway.base import GatewayConfig

from ._helpers import DEMO, skill_text, write_plugin


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> GatewayConfig:
    base = tmp_path_factory.mktemp("audit")
    return GatewayConfig(home=base / "gateway", user_home=base)


def cells(path: Path, config: GatewayConfig) -> dict[str, dict[str, str]]:
    report = audit([str(path)], config=config).to_dict()
    [package] = report["packages"]
    return {
        f"{row['kind']}:{row['name']}": {h: c["status"] for h, c in row["cells"].items()}
        for row in package["rows"]
    }


def test_agent_plugins_is_a_host_column() -> None:
    assert "agent-plugins" in HOSTS


def test_the_demo_plugin_runs_in_its_host_and_the_gateway_and_nanobot_skips_the_remote_one(
    config: GatewayConfig,
) -> None:
    rows = cells(DEMO, config)
    assert rows["skill:greeting"]["agent-plugins"] == "runs"
    assert rows["mcp_server:calc"]["gateway"] == "runs"
    assert rows["mcp_server:remote"]["gateway"] == "runs"
    assert rows["mcp_server:remote"]["agent-plugins"] == "runs"
    assert rows["mcp_server:calc"]["nanobot"] == "runs"
    assert rows["mcp_server:remote"]["nanobot"] == "unsupported"


def test_another_ecosystems_skill_is_foreign_to_the_agent_plugins_host(
    tmp_path: Path, config: GatewayConfig
) -> None:
    root = tmp_path / "pi-package"
    (root / "skills" / "s").mkdir(parents=True)
    (root / "skills" / "s" / "SKILL.md").write_text(skill_text("s"))
    (root / "package.json").write_text('{"name": "pi-package", "keywords": ["pi-package"]}')
    rows = cells(root, config)
    assert rows["skill:s"]["agent-plugins"] == "unsupported"


def test_a_skills_only_plugin_runs_everywhere_it_is_read(
    tmp_path: Path, config: GatewayConfig
) -> None:
    rows = cells(write_plugin(tmp_path / "p", skills={"s": skill_text("s")}), config)
    assert rows["skill:s"]["gateway"] == rows["skill:s"]["agent-plugins"] == "runs"
