"""Pi sidecar tests: real packages installed through the gateway, real Node processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.pi import find_node, sidecar_ready
from gateway import GatewayConfig
from gateway.model import LaunchSpec
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from gateway.wire import ExtensionProcess, LaunchPlan, PipeTransport, TransportConfig
from tests._backends import asyncio_only  # noqa: F401  (see tests/_backends.py)
from tests._process_host import StandaloneHost

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
NPM_FIXTURES = HERE.parent / "fixtures" / "npm"

_problem = sidecar_ready() or (None if find_node() else "no Node >= 22.19")
if _problem:
    pytest.skip(f"Pi sidecar not available: {_problem}", allow_module_level=True)


def install_ready(home: Path, source: Path, kind: str = "local") -> str:
    """Install a package (nothing runs), then pass every gate; returns its id."""
    report = install(home, str(source), kind=kind, inspector=load_adapters().inspect)
    package_id = report.package.record.id
    wanted = [p.name for p in report.entry.permissions]  # as installed: inspected once
    with StateStore.open(home) as store:
        if wanted:
            store.grant(package_id, wanted, wanted)
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


def module_workspace(factory: pytest.TempPathFactory, name: str) -> tuple[Path, GatewayConfig]:
    """A project folder and a gateway configuration with a home of their own, as the
    ``workspace`` fixture makes them, for a module-scoped gateway."""
    base = factory.mktemp(name)
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    config = GatewayConfig(
        home=home / ".gateway", user_home=home, shutdown_grace=0.3, term_grace=0.5
    )
    return root, config


def sidecar_process(
    name: str, spec: LaunchSpec, root: Path, log: Path, host: StandaloneHost
) -> ExtensionProcess:
    """The Pi sidecar of ``spec`` (the package at ``root``) as one process a test starts
    without a gateway, for the plain nimlet ``host``; it runs in ``log``'s folder."""
    plan = LaunchPlan(
        name=name,
        command=spec.command,
        cwd=log.parent,
        env={"PATH": "/usr/bin:/bin"},
        log_path=log,
        response_timeout=30,
        origin=root,
    )
    return ExtensionProcess(
        plan, host, PipeTransport(), TransportConfig(16 * 1024 * 1024, 0.3, 0.5)
    )
