"""The installed packages as a load sees them: their gates evaluated from the store, and
what each ready package's adapter says the gateway serves itself (skills, prompts)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gateway.host._state import GatewayState
from gateway.model import Discovery, ServesConfiguredResources, ServesResources
from gateway.packages import (
    STORE_UNUSABLE,
    NoAdapters,
    PackageStatus,
    evaluate_packages,
    load_adapters,
)
from gateway.store import STATE_FILE, StoreError

__all__ = ["evaluate_installed", "served_resources"]


def evaluate_installed(state: GatewayState) -> list[PackageStatus]:
    """Installed packages and their gates (blocking); a store that cannot say is a
    diagnostic and no package."""
    home = state.config.home
    if not (home / STATE_FILE).exists():
        return []
    try:
        return evaluate_packages(home, load_adapters())
    except (StoreError, NoAdapters) as error:
        state.diagnostics.add(STORE_UNUSABLE(f"installed packages not loaded: {error}"))
        return []


def served_resources(
    statuses: Iterable[PackageStatus], home: Path | None = None
) -> dict[str, Discovery]:
    """Package id → what its adapter says the gateway serves itself, for each ready package
    (blocking: the adapters read the packages' files); with ``home``, a package's settings
    apply where its adapter takes them (``ServesConfiguredResources``)."""
    try:
        adapters = load_adapters()
    except NoAdapters:
        return {}
    found: dict[str, Discovery] = {}
    for status in statuses:
        adapter = adapters.adapter(status.entry.ecosystem)
        if not status.ready:
            continue
        if home is not None and isinstance(adapter, ServesConfiguredResources):
            found[status.id] = adapter.configured_resources(status.entry, home)
        elif isinstance(adapter, ServesResources):
            found[status.id] = adapter.package_resources(status.entry)
    return found
