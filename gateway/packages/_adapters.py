"""How the gateway reaches the adapters without importing them.

Adapters depend on the gateway, never the reverse: the ``extension_gateway.adapters`` entry
point group names an ``AdapterSet`` (the ``adapters`` package registers
``adapters.registry:BUILTIN``). Inspection, launch planning and ecosystem discovery all go
through it, so a new runtime is a new adapter and nothing here changes.
"""

from __future__ import annotations

import functools
from pathlib import Path

from gateway.base import ADAPTERS_ENTRY_POINT, Diagnostic, GatewayError, Progress, no_progress
from gateway.model import (
    AdapterSet,
    CallPlan,
    CallPlanner,
    CatalogEntry,
    LaunchRefusal,
    LaunchSpec,
    OfferedSource,
    OffersPackages,
    PreparesInstalls,
    StagesInstalls,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "NoAdapters",
    "load_adapters",
    "plan_calls",
    "plan_launch",
    "prepare_install",
    "select_offered",
    "stage_install",
]

ENTRY_POINT_GROUP = ADAPTERS_ENTRY_POINT


class NoAdapters(GatewayError, RuntimeError):
    pass


@functools.cache
def load_adapters() -> AdapterSet:
    # Imported here: a command that loads no adapter (status with nothing installed) does
    # not pay for importlib.metadata.
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    if not found:
        raise NoAdapters(
            f"no package adapters are installed (entry point group {ENTRY_POINT_GROUP!r}); "
            "reinstall extension-gateway"
        )
    try:
        adapters: AdapterSet = found[0].load()
    except Exception as error:  # a broken adapter install must be a diagnostic, not a crash
        raise NoAdapters(f"the package adapters failed to load ({error!r}); reinstall") from None
    return adapters


def plan_launch(
    adapters: AdapterSet, entry: CatalogEntry, home: Path
) -> LaunchSpec | LaunchRefusal | None:
    """The entry's adapter plans its launch (None: the gateway runs it natively)."""
    adapter = adapters.adapter(entry.ecosystem)
    if adapter is None:
        return LaunchRefusal(f"no adapter is installed for {entry.ecosystem} packages")
    return adapter.plan_launch(entry, home)


def prepare_install(
    adapters: AdapterSet, home: Path, entry: CatalogEntry, progress: Progress = no_progress
) -> list[Diagnostic]:
    """What the entry's adapter does once the package is installed (``PreparesInstalls``),
    said to ``progress`` as it begins; most have nothing to do, and say nothing."""
    adapter = adapters.adapter(entry.ecosystem)
    if not isinstance(adapter, PreparesInstalls):
        return []
    progress(f"preparing {entry.id} to run (compiling its modules; nothing of it runs)")
    return adapter.prepare_install(entry, home)


def plan_calls(adapters: AdapterSet, entry: CatalogEntry, home: Path) -> CallPlan | None:
    """What the gateway runs itself for the package (None: its adapter plans nothing)."""
    adapter = adapters.adapter(entry.ecosystem)
    return adapter.plan_calls(entry, home) if isinstance(adapter, CallPlanner) else None


def stage_install(
    adapters: AdapterSet, entry: CatalogEntry, root: Path, previous: Path | None
) -> list[Diagnostic]:
    """The adapter's step on the staged package (e.g. Nu bundles its tools)."""
    adapter = adapters.adapter(entry.ecosystem)
    if not isinstance(adapter, StagesInstalls):
        return []
    return adapter.stage_install(entry, root, previous)


def select_offered(
    adapters: AdapterSet, root: Path, name: str | None
) -> Path | OfferedSource | list[Diagnostic] | None:
    """The folder (or the source) of the package ``name`` that the collection at ``root``
    offers (a Claude Code marketplace); None when no adapter reads ``root`` as one."""
    for adapter in adapters.adapters:
        if isinstance(adapter, OffersPackages):
            chosen = adapter.select_offered(root, name)
            if chosen is not None:
                return chosen
    return None
