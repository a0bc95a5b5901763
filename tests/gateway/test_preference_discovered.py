"""A discovered ``extension.json`` extension is preferred in name clashes by the id it is
granted by, ``nimlet:NAME``, and owns its names as its manifest's name: two workspace
extensions registering one tool, the later in nimlet's order wins until the user prefers
the earlier (``gateway prefer nimlet:NAME``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway import GatewayConfig, open_gateway
from gateway.host import discovered_owner
from gateway.store import StateStore
from tests.adapters._helpers import scripted_extension, write_tree

pytestmark = pytest.mark.anyio

PRELUDE = """
tools = [{"name": "same", "description": NAME + "'s", "input_schema": {"type": "object"}}]
"""


def test_a_discovered_id_names_its_registry_owner() -> None:
    assert discovered_owner("nimlet:notes") == "notes"
    assert discovered_owner("pi:zeta") == "pi:zeta"
    assert discovered_owner("openclaw:x") == "openclaw:x"
    assert discovered_owner("notes") is None and discovered_owner("pi:") is None  # controls


async def test_a_preferred_discovered_nimlet_extension_wins_the_clash(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    for name in ("alpha", "beta"):
        root = workspace / ".nimlet" / "extensions" / name
        script = scripted_extension(f"NAME = {name!r}\n{PRELUDE}", reply=name)
        write_tree(root, {"extension.json": {"name": name, "command": ["./ext.py"]},
                          "ext.py": script})  # fmt: skip
        (root / "ext.py").chmod(0o755)
    config = GatewayConfig(home=tmp_path / "home", user_home=tmp_path)

    async def owner() -> str:
        async with open_gateway(workspace, trust=True, config=config) as gateway:
            tool = gateway.registry.tool("same")
            assert tool is not None
            assert (await gateway.call_tool("same", {})).content == tool.owner
            return tool.owner

    unpreferred = await owner()  # the control: nimlet's rule, the later wins
    earlier = "alpha" if unpreferred == "beta" else "beta"
    with StateStore.open(config.home) as store:
        store.set_preferred([f"nimlet:{earlier}"], extensions=[f"nimlet:{earlier}"])
    assert await owner() == earlier
