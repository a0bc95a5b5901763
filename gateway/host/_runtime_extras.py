"""What a runtime offered the protocol additions sends beside its tools, checked before the
gateway takes it: the diagnostics it reports (at ``register`` and in updates), the tools
and commands of a registration update, and the skills it found while running."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from gateway.base import find_code
from gateway.host import _codes
from gateway.host._state import GatewayState
from gateway.model import Skill
from gateway.wire import CommandSpec, MemberNames, ToolSpec
from gateway.wire.features import RegistrationUpdate, RuntimeDiagnostic

__all__ = ["add_runtime_skills", "report_runtime", "update_specs"]


def report_runtime(
    state: GatewayState,
    owner: str,
    items: list[RuntimeDiagnostic | Any],
    names: MemberNames | None,
    fresh: Callable[[str], str],
) -> None:
    """Diagnostics a runtime reports, with catalogued codes, under the package they name
    when it hosts several (``names``, its ``register.owners``; ``fresh`` names an owner
    not seen before); anything else is ``protocol.diagnostic_invalid``."""
    for item in items:
        known = find_code(item.code) if isinstance(item, RuntimeDiagnostic) else None
        if known is None or not isinstance(item, RuntimeDiagnostic):
            state.diagnostics.add(
                _codes.RUNTIME_DIAGNOSTIC_INVALID(f"{owner}: {item!r}", package=owner)
            )
            continue
        package = owner
        if names is not None and item.package is not None:
            package = names.owner(item.package, fresh)
        # The logs are the package's, by its id: an owner renamed for a clash (``notes#2``)
        # is no name ``gateway logs`` knows.
        hint = f"gateway logs {state.package_of(package)}" if known.logs else None
        state.diagnostics.add(
            known(
                f"{package}: {item.message}",
                package=package,
                contribution=item.contribution,
                hint=hint,
            )
        )


def update_specs(
    state: GatewayState, owner: str, update: RegistrationUpdate
) -> tuple[list[ToolSpec], list[CommandSpec] | None]:
    """The valid tools and commands (None: not listed) of a registration update; each
    invalid one is reported."""
    specs, problems = update.tool_specs()
    commands, command_problems = update.command_specs()
    for problem in [*problems, *command_problems]:
        state.diagnostics.add(
            _codes.RUNTIME_DIAGNOSTIC_INVALID(
                f"{owner}: invalid tool or command in registration update: {problem}",
                package=owner,
            )
        )
    return specs, commands


def add_runtime_skills(state: GatewayState, owner: str, update: RegistrationUpdate) -> None:
    """Skills a runtime found while running (Pi's ``resources_discover``) join the
    session's skills; each path once."""
    skills, problems = update.runtime_skills()
    for problem in problems:
        state.diagnostics.add(
            _codes.RUNTIME_DIAGNOSTIC_INVALID(
                f"{owner}: invalid skill in registration update: {problem}", package=owner
            )
        )
    known = {str(skill.path) for skill in state.discovery.skills}
    for skill in skills:
        if skill.path not in known:
            known.add(skill.path)
            found = Skill(skill.name, skill.description, Path(skill.path), "package")
            state.discovery.skills.append(found)
