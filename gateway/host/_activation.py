"""Dormant packages: installed runtimes whose registration came from the cache, started on
the first use of one of their tools, commands or hooks.

Activation happens once, however many callers ask at the same time; what the package
depends on is activated first (a dependency that does not run blocks it, with a
diagnostic, and nothing else). A start is shielded from the caller's cancellation and
bounded by the runtime's own start timeout, so a user interrupt never leaves a half-started
process behind.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio

from gateway.host._state import GatewayState
from gateway.packages import GATE_BLOCKED
from gateway.wire import LaunchPlan

__all__ = ["Activator", "StartPlan"]

StartPlan = Callable[[LaunchPlan, str], Awaitable[bool]]
"""Start ``plan`` and register it under the owner; False when it did not start."""


@dataclass(frozen=True, slots=True)
class _Dormant:
    plan: LaunchPlan
    packages: tuple[str, ...]
    """The package it runs, or the packages a shared process hosts."""
    requires: frozenset[str]
    """Package ids it needs running first."""


class Activator:
    """Owns the dormant packages of one load and their activation."""

    def __init__(self, state: GatewayState, start: StartPlan) -> None:
        self._state = state
        self._start = start
        self._dormant: dict[str, _Dormant] = {}
        self._owner_of_package: dict[str, str] = {}
        self._starting: dict[str, anyio.Event] = {}
        self._failed: set[str] = set()

    def hold(
        self, owner: str, plan: LaunchPlan, packages: tuple[str, ...], requires: frozenset[str]
    ) -> None:
        """Hold ``plan`` until first use; activating any of ``packages`` starts it."""
        self._dormant[owner] = _Dormant(plan, packages, requires)
        for package in packages:
            self._owner_of_package[package] = owner

    def is_dormant(self, package: str) -> bool:
        return self._owner_of_package.get(package) in self._dormant

    def dormant(self) -> list[str]:
        """Owners still waiting for their first use."""
        return list(self._dormant)

    def forget(self, owner: str) -> None:
        """The owner restarts with a new plan: what was held for it no longer applies."""
        dormant = self._dormant.pop(owner, None)
        for package in dormant.packages if dormant is not None else ():
            if self._owner_of_package.get(package) == owner:
                del self._owner_of_package[package]
        self._failed.discard(owner)

    def clear(self) -> None:
        self._dormant.clear()
        self._owner_of_package.clear()
        self._failed.clear()

    def _running(self, owner: str) -> bool:
        return owner in self._state.owners.values()

    async def activate_package(self, package: str) -> bool:
        owner = self._owner_of_package.get(package)
        return owner is not None and await self.activate(owner)

    async def activate(self, owner: str) -> bool:
        """Start a dormant owner (once); True when it runs."""
        if self._running(owner):
            return True
        if owner in self._failed:
            return False
        starting = self._starting.get(owner)
        if starting is not None:
            await starting.wait()
            return self._running(owner)
        dormant = self._dormant.get(owner)
        if dormant is None:
            return False
        done = self._starting[owner] = anyio.Event()
        try:
            with anyio.CancelScope(shield=True):
                started = await self._activate(owner, dormant)
        finally:
            del self._starting[owner]
            done.set()
        if not started:
            self._failed.add(owner)
        return started

    async def _activate(self, owner: str, dormant: _Dormant) -> bool:
        missing = []
        for package in sorted(dormant.requires):
            needed = self._owner_of_package.get(package, package)
            if not self._running(needed) and not await self.activate(needed):
                missing.append(package)
        if missing:
            self._state.diagnostics.add(
                GATE_BLOCKED(
                    f"{', '.join(dormant.packages)}: not started because "
                    f"{', '.join(missing)} did not start",
                    package=dormant.packages[0],
                )
            )
            return False
        del self._dormant[owner]
        return await self._start(dormant.plan, owner)
