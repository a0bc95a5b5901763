"""Dormant packages: installed runtimes whose registration came from the cache, started on
the first use of one of their tools, commands or hooks.

Activation happens once, however many callers ask at the same time; what the package
depends on is activated first (a dependency that does not run blocks it, with a
diagnostic, and nothing else). A start runs in the gateway's own task group, bounded by the
runtime's start timeout: a caller that is cancelled (a user interrupt, a client that gave up)
stops waiting at once and the start goes on for the others. Closing the gateway abandons
every start in flight — the half-started process is stopped, not waited for — so a server
told to stop never waits out a slow package's start.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio

from gateway.host._state import GatewayState
from gateway.packages import GATE_BLOCKED
from gateway.wire import LaunchPlan

__all__ = ["Activator", "StartPlan"]

StartPlan = Callable[[LaunchPlan, str], Awaitable[bool]]
"""Start ``plan`` and register it under the owner; False when it did not start."""


@dataclass(slots=True)
class _Starting:
    """One activation in flight: its scope (cancelled when the gateway closes), the
    event its waiters wait on, and what it raised (raised again to each of them)."""

    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    done: anyio.Event = field(default_factory=anyio.Event)
    error: BaseException | None = None


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
        self._starting: dict[str, _Starting] = {}
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

    def owner_of(self, package: str) -> str | None:
        """The dormant process that runs ``package`` (None: it is not held)."""
        owner = self._owner_of_package.get(package)
        return owner if owner in self._dormant else None

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
        if starting is None:
            dormant = self._dormant.get(owner)
            if dormant is None:
                return False
            starting = self._starting[owner] = _Starting()
            self._state.tasks.start_soon(self._run, owner, dormant, starting)
        await starting.done.wait()
        if starting.error is not None:
            raise starting.error
        return self._running(owner)

    async def abandon(self) -> None:
        """Cancel every start in flight and wait until each has stopped what it started
        (shielded: the gateway is closing)."""
        starting = list(self._starting.values())
        for each in starting:
            each.scope.cancel()
        with anyio.CancelScope(shield=True):
            for each in starting:
                await each.done.wait()

    async def _run(self, owner: str, dormant: _Dormant, starting: _Starting) -> None:
        started = False
        try:
            with starting.scope:
                started = await self._activate(owner, dormant)
        except Exception as error:  # the waiters raise it, as when they ran the start
            starting.error = error
        finally:
            del self._starting[owner]
            if not started:
                self._failed.add(owner)
            starting.done.set()

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
