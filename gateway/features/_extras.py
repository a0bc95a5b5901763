"""Typed models of every ``gateway`` extra an extension may send (docs/protocol.md).

Each ``parse`` never raises for a shape it can degrade (a missing or malformed optional part
is simply absent); ``ExtraError`` is raised only where the whole extra is unusable and the
host reports it (a malformed registration update). pydantic checks what arrives as whole
objects (a runtime diagnostic, a registration update); the extras read on every call are
dataclasses checked by hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

from ..protocol import ToolSpec, describe_validation_error

__all__ = [
    "CommandExtras",
    "ExtraError",
    "RegisterExtras",
    "RegistrationUpdate",
    "RuntimeDiagnostic",
    "ToolExtras",
    "UpdateExtras",
]


class ExtraError(ValueError):
    """A ``gateway`` extra that does not have the announced shape; ``str()`` says why."""


class _Extra(BaseModel):
    # Unknown keys are ignored: a newer runtime may send more than this host reads.
    model_config = ConfigDict(extra="ignore", frozen=True)


_M = TypeVar("_M", bound=_Extra)


def _parse(model: type[_M], value: Any, what: str) -> _M:
    if not isinstance(value, dict):
        raise ExtraError(f"{what} must be an object, got {type(value).__name__}")
    try:
        return model.model_validate(value)
    except ValidationError as error:
        raise ExtraError(f"{what}: {describe_validation_error(error)}") from None


class RuntimeDiagnostic(_Extra):
    code: StrictStr
    message: StrictStr
    contribution: StrictStr | None = None


@dataclass(frozen=True, slots=True)
class RegisterExtras:
    """``register.gateway`` (``register.diagnostics``)."""

    diagnostics: list[Any] = field(default_factory=list)

    @classmethod
    def parse(cls, value: dict[str, Any] | None) -> RegisterExtras:
        reported = (value or {}).get("diagnostics") or []
        return cls(diagnostics=reported if isinstance(reported, list) else [reported])

    def runtime_diagnostics(self) -> list[RuntimeDiagnostic | Any]:
        """Each item as a ``RuntimeDiagnostic``, or as it was sent when malformed."""
        found: list[RuntimeDiagnostic | Any] = []
        for item in self.diagnostics:
            try:
                found.append(RuntimeDiagnostic.model_validate(item))
            except ValidationError:
                found.append(item)
        return found


@dataclass(frozen=True, slots=True)
class ToolExtras:
    """A tool ``response.gateway`` (``tool.parts``). Parsed on every tool call: a dataclass
    checked by hand, not a model."""

    parts: list[dict[str, Any]] | None = None
    details: Any = None
    has_details: bool = False

    @classmethod
    def parse(cls, value: Any) -> ToolExtras:
        if not isinstance(value, dict):
            return cls()  # absent, or not an object: nothing structured to read
        parts = value.get("parts")
        kept = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else None
        return cls(parts=kept, details=value.get("details"), has_details="details" in value)


@dataclass(frozen=True, slots=True)
class CommandExtras:
    """A command ``response.gateway`` (``host.actions``)."""

    actions: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, value: Any) -> CommandExtras:
        actions = value.get("actions") if isinstance(value, dict) else None
        if not isinstance(actions, list):
            return cls()
        return cls(actions=[action for action in actions if isinstance(action, str)])


class RegistrationUpdate(_Extra):
    """``update.gateway.registration`` (``registration.update``)."""

    tools: list[Any]
    active: list[StrictStr] | None = None

    def tool_specs(self) -> tuple[list[ToolSpec], list[str]]:
        """The valid tool specs, and a problem for each invalid one."""
        specs: list[ToolSpec] = []
        problems: list[str] = []
        for item in self.tools:
            try:
                specs.append(ToolSpec.model_validate(item))
            except ValidationError as error:
                problems.append(describe_validation_error(error))
        return specs, problems


@dataclass(frozen=True, slots=True)
class UpdateExtras:
    """An ``update.gateway``: progress, a registration update, or both."""

    progress: dict[str, Any] | None = None
    registration: Any = None
    has_registration: bool = False

    @classmethod
    def parse(cls, value: Any) -> UpdateExtras:
        if not isinstance(value, dict):
            return cls()
        progress = value.get("progress")
        valid = isinstance(progress, dict) and isinstance(progress.get("id"), str)
        return cls(
            progress=progress if valid else None,
            registration=value.get("registration"),
            has_registration="registration" in value,
        )

    def registration_update(self) -> RegistrationUpdate:
        """The registration delta; raises ``ExtraError`` when it is malformed."""
        return _parse(RegistrationUpdate, self.registration, "registration update")
