"""What the packages of one sidecar registered, with owners, checked against their manifests.

Ownership is checked at the API call, not only by the host: a tool, command or hook the
manifest does not declare is refused with ``nanobot.undeclared_registration``, so the
``register`` line lists only declared contributions (upstream nanobot never compared the
two). When two packages of the same sidecar register the same tool or command, the first
keeps it (nanobot's rule) unless the second's contribution lists the first package's id in
``replaces`` — every package in one sidecar has the same scope, so the replacement is
within scope precedence. Either way a ``nanobot.registration_conflict`` says who won. A
second registration of the same name by the *same* package raises ``ValueError`` into its
``register``, as nanobot's registries do; uncaught, it rolls the package back.
"""

from __future__ import annotations

from gateway.base import HOOK_EVENTS
from gateway.wire.features import REGISTER_DIAGNOSTICS

from . import _diagnostics as codes
from ._commands import CommandRouter, Route, normalize_command
from ._diagnostics import Report
from ._hooks import (
    NATIVE_EVENTS,
    POINTS,
    UNMAPPED,
    HookRegistration,
    HookRunner,
    implemented_points,
    turn_context,
)
from ._manifest import PackageInfo
from ._tools import InvalidRegistration, describe_tool

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["EVENT_ORDER", "Registry", "ToolSlot"]

EVENT_ORDER = HOOK_EVENTS
"""The order events are listed in ``register`` (nimlet's own order)."""


class ToolSlot:
    __slots__ = ("owner", "spec", "tool")

    def __init__(self, owner: str, tool: Any, spec: dict[str, Any]) -> None:
        self.owner, self.tool, self.spec = owner, tool, spec


class Registry:
    def __init__(self, report: Report, workspace: str, session_id: str) -> None:
        self.report = report
        self.tools: dict[str, list[ToolSlot]] = {}  # a stack: the top one is in effect
        self.router = CommandRouter()
        self.displaced: dict[tuple[bool, str], list[Route]] = {}
        self.hooks = HookRunner(self.tool)
        self.hooks.workspace, self.hooks.session_id = workspace, session_id
        self.packages: dict[str, PackageInfo] = {}

    def tool(self, name: str) -> Any:
        stack = self.tools.get(name)
        return stack[-1].tool if stack else None

    # ------------------------------------------------------------------ registration

    def _undeclared(self, package: PackageInfo, kind: str, name: str, call: str) -> None:
        declared = ", ".join(sorted(package.declared(kind))) or "none"
        self.report.add(
            codes.UNDECLARED_REGISTRATION,
            package.id,
            f"{call}: {kind} {name!r} is not declared in nanobot.extension.json "
            f"(declared {kind}s: {declared}); refused",
            name,
        )

    def _wins(self, package: PackageInfo, kind: str, name: str, holder: str) -> bool:
        """Does ``package`` take ``name`` from ``holder``? Only if it declares replacing it."""
        contribution = package.contribution(kind, name)
        wins = contribution is not None and holder in contribution.replaces
        outcome = (
            f"{package.id} replaces {holder} (declared in replaces)"
            if wins
            else f"{holder} keeps it; {package.id}'s registration is refused"
        )
        self.report.add(
            codes.REGISTRATION_CONFLICT,
            package.id,
            f"{kind} {name!r} is registered by {holder} and {package.id}: {outcome}",
            name,
        )
        return wins

    def add_tool(self, package: PackageInfo, tool: Any) -> None:
        try:
            name, spec = describe_tool(tool)
        except InvalidRegistration as error:
            self.report.add(codes.REGISTRATION_INVALID, package.id, f"register_tool: {error}")
            return
        if package.contribution("tool", name) is None:
            self._undeclared(package, "tool", name, f"register_tool({name!r})")
            return
        stack = self.tools.setdefault(name, [])
        if stack and stack[-1].owner == package.id:
            raise ValueError(f"tool {name!r} is already registered")
        if stack and not self._wins(package, "tool", name, stack[-1].owner):
            return
        stack.append(ToolSlot(package.id, tool, spec))

    def add_command(self, package: PackageInfo, command: Any, handler: Any, prefix: bool) -> None:
        if not isinstance(command, str) or not command.strip(" /"):
            self.report.add(
                codes.REGISTRATION_INVALID,
                package.id,
                f"register_command: {command!r} is not a command name",
            )
            return
        if not callable(handler):
            self.report.add(
                codes.REGISTRATION_INVALID,
                package.id,
                f"register_command({command!r}): the handler is not callable",
            )
            return
        route = Route(package.id, normalize_command(command, bool(prefix)), handler, bool(prefix))
        call = f"register_command({command!r}{', prefix=True' if prefix else ''})"
        if package.contribution("command", route.gateway_name) is None:
            self._undeclared(package, "command", route.gateway_name, call)
            return
        existing = self.router.find(route.key, route.prefix)
        if existing is not None:
            if existing.owner == package.id:
                raise ValueError(f"command {route.key!r} is already registered")
            if not self._wins(package, "command", route.gateway_name, existing.owner):
                return
            self.router.remove(existing)
            self.displaced.setdefault((route.prefix, route.key), []).append(existing)
        self.router.add(route)

    def add_hook_factory(
        self, package: PackageInfo, factory: Callable[..., Any], name: str | None
    ) -> None:
        if not callable(factory):
            self.report.add(
                codes.REGISTRATION_INVALID,
                package.id,
                "register_hook_factory: the factory is not callable",
            )
            return
        declared = package.declared("hook")
        if name is None:
            # One declared hook: every factory is it. Several: the function name says which.
            only = next(iter(declared)) if len(declared) == 1 else None
            name = only or str(getattr(factory, "__name__", ""))
        if name not in declared:
            self._undeclared(package, "hook", name, "register_hook_factory")
            return
        try:
            probe = factory(turn_context(self.hooks.workspace, self.hooks.session_id))
        except Exception as error:
            self.report.add(
                codes.HOOK_FACTORY_FAILED,
                package.id,
                f"hook factory {name!r} raised {error!r} when called; it is not registered",
                name,
            )
            return
        if probe is None:
            events = set(NATIVE_EVENTS)
        else:
            points = implemented_points(probe)
            unmapped = sorted(points & set(UNMAPPED))
            if unmapped:
                self.report.add(
                    codes.HOOK_POINT_UNMAPPED,
                    package.id,
                    f"hook {name!r} implements {', '.join(unmapped)}, which the gateway has "
                    "no event for; they never fire (docs/nanobot.md lists the mapping)",
                    name,
                )
            events = {POINTS[p] for p in points if p in POINTS}
            if events:
                events.add("turn_end")
            if points & {"after_run", "on_error", "on_finally"}:
                events.add("tool_result")  # the run context's tools_used is filled from it
        self.hooks.registrations.append(
            HookRegistration(package.id, name, factory, frozenset(events))
        )

    def remove_owner(self, owner: str) -> None:
        """Roll back everything ``owner`` registered; what it displaced comes back."""
        for name in list(self.tools):
            stack = [slot for slot in self.tools[name] if slot.owner != owner]
            if stack:
                self.tools[name] = stack
            else:
                del self.tools[name]
        for route in self.router.routes():
            if route.owner == owner:
                self.router.remove(route)
                earlier = self.displaced.get((route.prefix, route.key))
                if earlier:
                    self.router.add(earlier.pop())
        for key, routes in self.displaced.items():
            self.displaced[key] = [r for r in routes if r.owner != owner]
        self.hooks.remove_owner(owner)

    # ------------------------------------------------------------------ the register line

    def register_message(self, diagnostics: list[dict[str, Any]] | None) -> dict[str, Any]:
        commands: dict[str, dict[str, str]] = {}
        for route in self.router.routes():
            if route.gateway_name not in commands:
                declared = self.packages[route.owner].contribution("command", route.gateway_name)
                commands[route.gateway_name] = {
                    "name": route.gateway_name,
                    "description": declared.description if declared else "",
                }
        message: dict[str, Any] = {"type": "register", "commands": list(commands.values())}
        tools = [stack[-1].spec for stack in self.tools.values() if stack]
        if tools:
            message["tools"] = tools
        events = self.hooks.events()
        if events:
            message["events"] = [event for event in EVENT_ORDER if event in events]
        if diagnostics is not None:
            message["gateway"] = {"features": [REGISTER_DIAGNOSTICS], "diagnostics": diagnostics}
        return message
