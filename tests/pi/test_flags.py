"""Pi's ``registerFlag``: the flags a package registers are in the registry (and so in
``gateway list``), owned by the package, first registration of a name winning as in Pi."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway import open_gateway

from .conftest import install_ready

pytestmark = pytest.mark.anyio

FLAGS = """export default function (pi) {
  pi.registerFlag("plan", { description: "start in plan mode", type: "boolean", default: false });
  pi.registerFlag("model-name", { description: "which model", type: "string" });
}
"""


def flagged(root: Path) -> Path:
    folder = root / "flagged"
    (folder / "extensions").mkdir(parents=True)
    manifest = {
        "name": "flagged",
        "version": "1.0.0",
        "pi": {"extensions": ["./extensions/index.js"]},
    }
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "extensions" / "index.js").write_text(FLAGS)
    return folder


async def test_flags_a_pi_package_registers_are_listed_with_their_owner(workspace):
    install_ready(workspace.config.home, flagged(workspace.root.parent))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        flags = {(f.name, f.type, f.default, f.owner) for f in gateway.registry.flags()}
        assert flags == {
            ("plan", "boolean", False, "flagged"),
            ("model-name", "string", None, "flagged"),
        }


async def test_flags_stay_listed_when_the_package_is_held_dormant(workspace):
    install_ready(workspace.config.home, flagged(workspace.root.parent))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ):
        pass  # fills the registration cache
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert {f.name for f in gateway.registry.flags()} == {"plan", "model-name"}
