"""Who wins name clashes (``gateway prefer``), as ``prefer``, ``status``, ``list
--packages`` and ``list`` show it: the preferred ids, strongest first, each an installed
package, a discovered extension (``pi:NAME``, ``openclaw:ID``, ``nimlet:NAME``: preferred
by the id it is granted by) or a package no longer installed."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from gateway.base import GatewayConfig
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = ["preference_json", "preference_line", "read_preference"]


def read_preference(config: GatewayConfig) -> list[str]:
    """The preferred ids, strongest first; none without a usable store (status says why)."""
    if not (config.home / STATE_FILE).exists():
        return []
    try:
        with StateStore.open(config.home) as store:
            return store.preferred()
    except StoreError:
        return []


def _kind(package_id: str, installed: Collection[str]) -> str:
    from gateway.host import discovered_owner

    if package_id in installed:
        return "installed"
    return "discovered" if discovered_owner(package_id) is not None else "not installed"


def preference_json(preferred: list[str], installed: Collection[str]) -> list[dict[str, Any]]:
    """``[{"id", "kind"}]``, strongest first; ``kind``: installed, discovered or not
    installed."""
    return [{"id": package_id, "kind": _kind(package_id, installed)} for package_id in preferred]


def preference_line(preferred: list[str], installed: Collection[str]) -> str:
    """One line: who wins name clashes before install order decides."""
    if not preferred:
        return "name clashes: install order decides (no package preferred: gateway prefer ID…)"
    shown = []
    for place, package_id in enumerate(preferred, 1):
        kind = _kind(package_id, installed)
        note = "" if kind == "installed" else f" ({kind})"
        shown.append(f"{place}. {package_id}{note}")
    return f"name clashes: preferred {', '.join(shown)}; then install order decides"
