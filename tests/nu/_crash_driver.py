"""Child of the kill -9 test: a gateway that calls an at-most-once Nu tool, to be killed
with SIGKILL while the call runs.

    python -m tests.nu._crash_driver HOME WORKSPACE TOOL JSON_ARGUMENTS
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio

from gateway import GatewayConfig, open_gateway


async def main(home: str, workspace: str, tool: str, arguments: str) -> None:
    config = GatewayConfig(home=Path(home), user_home=Path(home).parent)
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        result = await gateway.call_tool(tool, json.loads(arguments))
        print(json.dumps(result.to_dict()))  # only if the test did not kill us first


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:5])
