"""A package installed as ``gateway install`` does — its ``prepare_install`` step included
(what the install compiles, runs nothing) — then trusted and enabled; and a folder's
modification times, to tell what a start rewrote. Shared by the Pi and OpenClaw
install-time compile tests."""

from __future__ import annotations

import functools
from pathlib import Path

from gateway.packages import InstallReport, install, load_adapters, prepare_install
from gateway.store import StateStore

__all__ = ["install_prepared", "snapshot"]


def install_prepared(home: Path, source: Path) -> InstallReport:
    adapters = load_adapters()
    report = install(
        home, str(source), kind="local", inspector=adapters.inspect,
        prepare=functools.partial(prepare_install, adapters, home),
    )  # fmt: skip
    with StateStore.open(home) as store:
        store.set_trusted(report.package.record.id, True)
        store.set_enabled(report.package.record.id, True)
    return report


def snapshot(folder: Path) -> dict[str, int]:
    """Each file of ``folder`` by name: its modification time (ns)."""
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
