"""One process, several packages: a registration split per package (negotiated
``register.owners``), so each package keeps its own owner in the registry.

A runtime that hosts several packages in one process (the Node sidecar hosting the installed
Pi packages of one permission set, or every discovered Pi extension) says which package
registered each tool and command and which packages subscribe to each event. The host
projects each package's part under that package's own owner name, and addresses an event to
one package (``event.gateway.package``), so a hook is one package's handlers, as when it runs
alone. What the runtime does not attribute stays with the process's own owner.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from gateway.wire.features import Owners
from gateway.wire.protocol import CommandSpec, RegisterMessage, ToolSpec

__all__ = ["Member", "MemberNames", "split_registration", "split_specs"]

_Spec = TypeVar("_Spec", ToolSpec, CommandSpec)


@dataclass(frozen=True, slots=True)
class Member:
    package: str
    registration: RegisterMessage
    addressed: str | None
    """The package id its events are addressed to; None for what the runtime did not
    attribute (kept by the process's own owner: an event runs every handler)."""


def split_specs(
    specs: Sequence[_Spec], owners: dict[str, str], default: str
) -> dict[str, list[_Spec]]:
    """Specs by the package that registered each (``default`` for those not named)."""
    found: dict[str, list[_Spec]] = {}
    for spec in specs:
        found.setdefault(owners.get(spec.name, default), []).append(spec)
    return found


def split_registration(
    registration: RegisterMessage, owners: Owners, default: str, order: Sequence[str] = ()
) -> list[Member]:
    """Each package's part of ``registration``: the packages of ``order`` first (the load
    order, even those that registered nothing), then any other the runtime named."""
    packages = list(dict.fromkeys(order))
    tools = split_specs(registration.tools or [], owners.tools, default)
    commands = split_specs(registration.commands, owners.commands, default)
    events: dict[str, list[str]] = {}
    for event in registration.events or []:
        for package in owners.events.get(event) or [default]:
            events.setdefault(package, []).append(event)
    flags: dict[str, list[object]] = {}  # register.flags: each package's own
    for flag in (registration.gateway or {}).get("flags") or []:
        named_package = flag.get("package") if isinstance(flag, dict) else None
        where = named_package if isinstance(named_package, str) else default
        flags.setdefault(where, []).append(flag)
    for package in [*tools, *commands, *events, *flags]:
        if package not in packages:
            packages.append(package)
    named = {*order, *owners.tools.values(), *owners.commands.values()}
    named.update(package for ids in owners.events.values() for package in ids)
    return [
        Member(
            package,
            RegisterMessage(
                type="register",
                tools=tools.get(package, []),
                commands=commands.get(package, []),
                events=events.get(package, []),
                gateway={"flags": flags[package]} if package in flags else None,
            ),
            package if package in named else None,
        )
        for package in packages
    ]


@dataclass(slots=True)
class MemberNames:
    """The registry owner of each package of one process, kept across restarts and the
    switch from a cached (dormant) registration to the live one."""

    process_owner: str
    process_name: str
    names: dict[str, str] = field(default_factory=dict)

    def owner(self, package: str, fresh: Callable[[str], str]) -> str:
        """The owner name of ``package`` (``fresh`` names a new one without a clash); the
        process's own name is the process's owner."""
        if package not in self.names:
            same = package == self.process_name
            self.names[package] = self.process_owner if same else fresh(package)
        return self.names[package]
