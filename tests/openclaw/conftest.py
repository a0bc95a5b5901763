"""OpenClaw host tests: plugins installed through the gateway, real Node sidecars."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters._sidecar import sidecar_ready
from adapters.openclaw import MIN_NODE
from gateway import GatewayConfig
from gateway.packages import install, load_adapters
from gateway.runtime import find_node
from gateway.store import StateStore
from tests._backends import asyncio_only  # noqa: F401  (see tests/_backends.py)
from tests._cli_inprocess import run_gateway

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
NPM_FIXTURES = HERE.parent / "fixtures" / "npm"

_problem = sidecar_ready("openclaw") or (None if find_node(MIN_NODE) else "no Node >= 24.16")
if _problem:
    pytest.skip(f"OpenClaw host not available: {_problem}", allow_module_level=True)


def install_ready(
    home: Path, source: Path, kind: str = "local", grant: tuple[str, ...] = ()
) -> str:
    """Install a package (nothing runs), trust and enable it, grant ``grant``; its id."""
    report = install(home, str(source), kind=kind, inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        requested = [
            p.name for p in load_adapters().inspect(report.package.record.path).permissions
        ]
        if grant:  # what it requests, and hooks.rewrite, which any package may be granted
            store.grant(package_id, grant, [*requested, "hooks.rewrite"])
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


def codes(gateway: Any, prefix: str = "openclaw.") -> list[str]:
    return [d.code for d in gateway.diagnostics if d.code.startswith(prefix)]


def messages(gateway: Any, code: str) -> list[str]:
    return [d.message for d in gateway.diagnostics if d.code == code]


def config_for(home: Path, user_home: Path) -> GatewayConfig:
    return GatewayConfig(home=home, user_home=user_home, shutdown_grace=0.3, term_grace=0.5)


def cli(home: Path, *args: str, cwd: Path | None = None) -> Any:
    """``gateway ARGS`` in this process (tests/_cli_inprocess.py), GATEWAY_HOME and HOME in
    the test's folder; the sidecars it starts are real processes."""
    return run_gateway(home, *args, cwd=cwd)


def cli_json(home: Path, *args: str, cwd: Path | None = None) -> Any:
    import json

    done = cli(home, *args, "--json", cwd=cwd)
    assert done.returncode == 0, (done.stdout, done.stderr)
    return json.loads(done.stdout)
