"""A package installed alone in a home as a user's gateway takes it (``install`` with the
adapters' inspector, what it requests but optional granted, trusted, enabled; nothing
compiled at install) and what one real gateway opened on that home registers: made once per
test run (``tests._once``) and read by the modules that need the same package's load.

``@laurentenhoor/devclaw`` (tests/fixtures/npm) is read by tests/openclaw/test_host_loaders.py
(it loads as the OpenClaw it declares loads it) and tests/gateway/audit/test_truth.py (the
audit's claims checked against what a gateway registers): each installed and started it,
~6 s of CPU for jiti's transform of its 1.3 MB bundle at every start."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from gateway import GatewayConfig, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests._once import once_per_run

__all__ = ["Opened", "opened_alone"]


@dataclass(frozen=True, slots=True)
class Opened:
    """What the gateway registered, by owner where it has one."""

    id: str
    tools: frozenset[tuple[str, str]]
    """(owner, name)."""
    commands: frozenset[tuple[str, str]]
    """(owner, name)."""
    hooks: frozenset[tuple[str, str]]
    """(owner, event)."""
    diagnostics: tuple[tuple[str, str, str | None], ...]
    """Every diagnostic of the gateway: (code, message, package)."""

    def owned(self, kind: str) -> set[str]:
        """The names of ``kind`` (``tool``, ``command``, ``hook``) the package owns."""
        found = {"tool": self.tools, "command": self.commands, "hook": self.hooks}[kind]
        return {name for owner, name in found if owner == self.id}

    def codes(self) -> set[str]:
        """The codes of the package's own diagnostics."""
        return {code for code, _, package in self.diagnostics if package == self.id}

    def messages(self, code: str) -> list[str]:
        """Every diagnostic's message with ``code``, whoever it names."""
        return [message for found, message, _ in self.diagnostics if found == code]


async def _opened(base: Path, package_id: str) -> Opened:
    config = GatewayConfig(
        home=base / "user" / ".gateway", user_home=base / "user", shutdown_grace=0.3,
        term_grace=0.5,
    )  # fmt: skip
    workspace = base / "ws"
    workspace.mkdir(exist_ok=True)
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        return Opened(
            package_id,
            frozenset((t.owner, t.name) for t in gateway.tools()),
            frozenset((c.owner, c.name) for c in gateway.registry.commands()),
            frozenset((h.owner, h.event) for h in gateway.registry.hooks()),
            tuple((d.code, d.message, d.package) for d in gateway.diagnostics),
        )


def _install_and_open(source: Path, kind: str, base: Path) -> Opened:
    home = base / "user" / ".gateway"
    report = install(home, str(source), kind=kind, inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        requested = [p.name for p in report.entry.permissions if not p.optional]
        if requested:
            store.grant(package_id, requested, requested)
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    opened: Opened = anyio.run(_opened, base, package_id, backend="asyncio")
    return opened


def opened_alone(
    source: Path, factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Opened:
    """``source`` (a packed tarball: kind npm; else a folder) installed alone and opened by
    one gateway, once per run; each call returns its own copy."""
    kind = "npm" if source.suffix == ".tgz" else "local"
    make = functools.partial(_install_and_open, source, kind)
    opened: Opened = once_per_run(f"opened-{source.name}", make, factory, request)
    return opened
