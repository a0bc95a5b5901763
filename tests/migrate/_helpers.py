"""A gateway home to migrate from, and the steps a user takes after a migration (the gates
MIGRATION.md lists), done as the user would with the store."""

from __future__ import annotations

import shutil
from pathlib import Path

from gateway import GatewayConfig
from gateway.migrate import Migration, migrate
from gateway.store import StateStore
from tests.serve._helpers import GATEWAY, NANOBOT, NIMLET, PI, REPO

NU = REPO / "examples" / "packages" / "nu-changelog"
SOURCES = {"pi": PI, "nanobot": NANOBOT, "nimlet": NIMLET, "nu": NU}


def config_for(home: Path) -> GatewayConfig:
    return GatewayConfig(home=home, user_home=home.parent / "user")


def run(source: Path | str, target: str, out: Path, home: Path, **options) -> Migration:
    return migrate(str(source), target, out, config=config_for(home), gateway_command=GATEWAY,
                   **options)  # fmt: skip


def pass_gates(migration: Migration, home: Path) -> None:
    """What MIGRATION.md's "Before it runs" asks of the user: grant, trust, enable."""
    wanted = [p.name for p in migration.package.entry.permissions]
    with StateStore.open(home) as store:
        store.grant(migration.package.id, wanted, wanted)
        store.set_trusted(migration.package.id, True)
        store.set_enabled(migration.package.id, True)


def into_workspace(out: Path, workspace: Path) -> None:
    """``cp -r OUT/. WORKSPACE/`` (MIGRATION.md's recipe for the nimlet target)."""
    shutil.copytree(out, workspace, dirs_exist_ok=True)
