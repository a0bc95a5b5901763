"""Declared contributions: where a package's format declares every tool and command it
contributes, what its process registers is held to that — undeclared ones are refused,
declared ones never registered are reported, and a declared one takes over another
package's only when its ``replaces`` names that package (nanobot's rule)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from gateway.host import _codes
from gateway.host._state import GatewayState
from gateway.model import BUILTIN_OWNER, CatalogEntry
from gateway.wire import CommandSpec, RegisterMessage, ToolSpec

__all__ = ["Declarations"]

Declared = dict[tuple[str, str], list[str]]
"""(kind, name) of each tool and command a package declares → the package ids it may
replace (nanobot's ``replaces``)."""

_Spec = TypeVar("_Spec", ToolSpec, CommandSpec)


class Declarations:
    """Owns what each owner declares, for the owners that declare all they contribute."""

    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._declared: dict[str, Declared] = {}

    def declare(self, owner: str, entry: CatalogEntry) -> None:
        """Hold ``owner``'s registration to what its manifest declares, if it declares all."""
        if entry.enforce_declared:
            self._declared[owner] = {
                (c.kind, c.name): list(c.replaces)
                for c in entry.contributions
                if c.kind in ("tool", "command")
            }

    def clear(self) -> None:
        self._declared.clear()

    def registered(
        self, owner: str, registration: RegisterMessage
    ) -> tuple[list[ToolSpec], list[CommandSpec]]:
        """The tools and commands of ``owner``'s registration it may register: all of them
        when it declares nothing; else the declared ones without conflicts, and each
        declared one it did not register is reported."""
        tools, commands = list(registration.tools or ()), list(registration.commands)
        declared = self._declared.get(owner)
        if declared is None:
            return tools, commands
        kept_tools = self._declared_of(owner, "tool", tools, declared)
        kept_commands = self._declared_of(owner, "command", commands, declared)
        registered = {("tool", t.name) for t in tools} | {("command", c.name) for c in commands}
        for kind, name in sorted(set(declared) - registered):
            self._state.diagnostics.add(
                _codes.CONTRIBUTION_MISSING(
                    f"{owner}: declared {kind} {name!r} was never registered",
                    package=owner,
                    contribution=name,
                )
            )
        return kept_tools, kept_commands

    def updated(
        self, owner: str, specs: list[ToolSpec], commands: list[CommandSpec] | None
    ) -> tuple[list[ToolSpec], list[CommandSpec] | None]:
        """The declared ones of a registration update's tools and commands (None: not
        listed); undeclared ones are left out without a word."""
        declared = self._declared.get(owner)
        if declared is None:
            return specs, commands
        specs = [spec for spec in specs if ("tool", spec.name) in declared]
        if commands is not None:
            commands = [c for c in commands if ("command", c.name) in declared]
        return specs, commands

    def _declared_of(
        self, owner: str, kind: str, specs: Sequence[_Spec], declared: Declared
    ) -> list[_Spec]:
        """The declared specs of one kind, without conflicts: a declared contribution takes
        over another package's only when its ``replaces`` names that package; otherwise the
        first one keeps it (nanobot's rule)."""
        registry = self._state.registry
        kept: list[_Spec] = []
        for spec in specs:
            if (kind, spec.name) not in declared:
                self._state.diagnostics.add(
                    _codes.UNDECLARED_CONTRIBUTION(
                        f"{owner}: {kind} {spec.name!r} is not declared in its manifest; refused",
                        package=owner,
                        contribution=spec.name,
                    )
                )
                continue
            current = registry.tool(spec.name) if kind == "tool" else registry.command(spec.name)
            if (
                current is not None
                and current.owner not in (owner, BUILTIN_OWNER)
                and current.owner not in declared[(kind, spec.name)]
            ):
                self._state.diagnostics.add(
                    _codes.CONTRIBUTION_CONFLICT(
                        f"{owner}: {kind} {spec.name!r} is already provided by "
                        f"{current.owner}; not replaced (its `replaces` does not name it)",
                        package=owner,
                        contribution=spec.name,
                    )
                )
                continue
            kept.append(spec)
        return kept
