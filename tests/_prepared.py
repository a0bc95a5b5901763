"""A package installed as ``gateway install`` does — its ``prepare_install`` step included
(what the install compiles, runs nothing) — then trusted and enabled; a folder's
modification times, to tell what a start rewrote (shared by the Pi and OpenClaw
install-time compile tests); and a folder prepared once and made again as it was for each
test that changes it (``set_aside`` / ``restore``)."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from gateway.packages import InstallReport, install, load_adapters, prepare_install
from gateway.store import StateStore

__all__ = ["install_prepared", "restore", "set_aside", "snapshot"]


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


def _kept(folder: Path) -> Path:
    return folder.with_name(folder.name + ".prepared")


def set_aside(folder: Path) -> Path:
    """``folder`` as it is now, kept (a copy beside it) for ``restore``; returns ``folder``."""
    shutil.copytree(folder, _kept(folder), symlinks=True)
    return folder


def restore(folder: Path) -> Path:
    """``folder`` made again as it was when set aside, at the same path: what recorded its
    absolute paths (a gateway home's state, its packages' sources) holds as it did, as in a
    folder prepared afresh — the install run once per module instead of once per test."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(_kept(folder), folder, symlinks=True)
    return folder
