"""The confined side of the throwaway load (``_throwaway``): open a gateway on the private
home with only the one package, print what registered as JSON, close. Calls nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from gateway.base import GatewayConfig
from gateway.host import open_gateway


async def _main(home: Path, workspace: Path, user: Path, package_id: str) -> None:
    config = GatewayConfig(
        home=home, user_home=user, lazy_start=False, packages=(package_id,), passthrough_env=()
    )
    async with open_gateway(workspace, trust=False, config=config) as gateway:
        registry = gateway.registry
        found = {
            "tools": [tool.describe() for tool in registry.tools()],
            "commands": [
                {"name": c.name, "description": c.description, "owner": c.owner}
                for c in registry.commands()
            ],
            "hooks": [{"event": h.event, "owner": h.owner} for h in registry.hooks()],
            "diagnostics": [d.to_dict() for d in gateway.diagnostics],
        }
    sys.stdout.write(json.dumps(found) + "\n")


if __name__ == "__main__":
    home, workspace, user, package_id = sys.argv[1:5]
    anyio.run(_main, Path(home), Path(workspace), Path(user), package_id)
