"""``gateway serve --mcp`` imports the MCP SDK's server modules without running the
``__init__`` of ``mcp`` (the SDK's client) and ``mcp.server`` (its ``MCPServer``); the
packages' own names still load when something asks for them. The deferral is shown on a
package of the test's own: this process imported the SDK whole at collection."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.serve import defer_package_inits

PACKAGE = "sdk_packages_probe"


@pytest.fixture
def probe(tmp_path: Path) -> Iterator[Path]:
    """A package whose ``__init__`` and its subpackage's record that they ran (in
    ``RAN``, a list in the leaf module that nothing else imports) and export a name."""
    root = tmp_path / PACKAGE
    (root / "server").mkdir(parents=True)
    (root / "ran.py").write_text("RAN = []\n")
    (root / "__init__.py").write_text(
        f"from {PACKAGE}.ran import RAN\nRAN.append('{PACKAGE}')\nNAME = 'top'\n"
    )
    (root / "server" / "__init__.py").write_text(
        f"from {PACKAGE}.ran import RAN\nRAN.append('server')\nfrom .leaf import LEAF as NAME\n"
    )
    (root / "server" / "leaf.py").write_text("LEAF = 'leaf'\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield root
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def _ran() -> list[str]:
    return list(sys.modules[f"{PACKAGE}.ran"].RAN)


def test_a_submodule_imports_without_its_packages_init(probe: Path) -> None:
    defer_package_inits((PACKAGE, f"{PACKAGE}.server"))
    from sdk_packages_probe.server.leaf import LEAF  # type: ignore[import-not-found]

    assert LEAF == "leaf"
    assert f"{PACKAGE}.ran" not in sys.modules  # neither __init__ ran


def test_a_packages_own_name_runs_its_init_once_at_first_use(probe: Path) -> None:
    defer_package_inits((PACKAGE, f"{PACKAGE}.server"))
    import sdk_packages_probe.server.leaf  # type: ignore[import-not-found]  # noqa: F401
    from sdk_packages_probe import NAME  # type: ignore[import-not-found]
    from sdk_packages_probe.server import NAME as SERVER_NAME  # type: ignore[import-not-found]

    assert (NAME, SERVER_NAME) == ("top", "leaf")
    assert _ran() == [PACKAGE, "server"]
    with pytest.raises(AttributeError):
        sys.modules[PACKAGE].MISSING  # noqa: B018  (after its __init__: a plain miss)
    assert _ran() == [PACKAGE, "server"]


def test_a_package_already_imported_is_left_as_it_is(probe: Path) -> None:
    import sdk_packages_probe  # type: ignore[import-not-found]

    defer_package_inits((PACKAGE,))
    assert sys.modules[PACKAGE] is sdk_packages_probe and _ran() == [PACKAGE]


# `gateway serve --mcp` as its console script runs it, then (on stderr, after its last
# reply) whether the SDK's client and its MCPServer had been imported by the end.
SERVED = """\
import json, sys
from gateway.cli import main
status = main(sys.argv[1:])
print(json.dumps(sorted(m for m in ("mcp.client", "mcp.server.mcpserver") if m in sys.modules)),
      file=sys.stderr)
sys.exit(status)
"""


def test_a_served_mcp_gateway_imports_neither_the_sdk_client_nor_mcpserver(tmp_path):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", SERVED, "serve", "--mcp", "--trust"],
        input=json.dumps(initialize) + "\n", capture_output=True,
        text=True, timeout=60, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_HOME": str(tmp_path / "h")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (reply,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert reply["result"]["serverInfo"]["name"] == "extension-gateway"
    assert json.loads(done.stderr.splitlines()[-1]) == []
