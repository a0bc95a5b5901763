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

from gateway.base import GatewayError, schema_problem
from gateway.wire.protocol import CommandSpec, ToolSpec, describe_validation_error

__all__ = [
    "CommandExtras",
    "ExtraError",
    "Owners",
    "RegisterExtras",
    "RegistrationUpdate",
    "RuntimeDiagnostic",
    "RuntimeFlag",
    "ToolExtras",
    "UpdateExtras",
]


TOOL_HOOK_EVENTS = ("tool_call", "tool_result")
"""The events whose hooks ``register.hook_tools`` can narrow to some tools."""


class ExtraError(GatewayError, ValueError):
    """A ``gateway`` extra that does not have the announced shape; ``str()`` says why."""


class _Extra(BaseModel):
    # Unknown keys are ignored: a newer runtime may send more than this host reads.
    # defer_build: each is built when first parsed; a plain nimlet extension sends none.
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


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
    package: StrictStr | None = None
    """The package of a process hosting several it concerns (``register.owners``)."""


def _runtime_diagnostics(items: list[Any]) -> list[RuntimeDiagnostic | Any]:
    """Each item as a ``RuntimeDiagnostic``, or as it was sent when malformed."""
    found: list[RuntimeDiagnostic | Any] = []
    for item in items:
        try:
            found.append(RuntimeDiagnostic.model_validate(item))
        except ValidationError:
            found.append(item)
    return found


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


class Owners(_Extra):
    """``register.gateway.owners`` / ``registration.owners`` (``register.owners``): the
    package id that registered each tool and command, and the packages subscribing to each
    event, in load order. What it does not name belongs to the process's own owner."""

    tools: dict[str, StrictStr] = {}
    commands: dict[str, StrictStr] = {}
    events: dict[str, list[StrictStr]] = {}


class RuntimeFlag(_Extra):
    """A command-line flag a package registered (``register.flags``; Pi's ``registerFlag``)."""

    name: StrictStr
    description: StrictStr = ""
    type: StrictStr = "boolean"
    default: Any = None
    package: StrictStr | None = None


@dataclass(frozen=True, slots=True)
class RegisterExtras:
    """``register.gateway`` (``register.diagnostics``, ``register.owners``,
    ``register.flags``, ``register.hook_tools``)."""

    diagnostics: list[Any] = field(default_factory=list)
    owners: Any = None
    flags: list[Any] = field(default_factory=list)
    hook_tools: Any = None

    @classmethod
    def parse(cls, value: dict[str, Any] | None) -> RegisterExtras:
        value = value or {}
        return cls(
            diagnostics=_as_list(value.get("diagnostics")),
            owners=value.get("owners"),
            flags=_as_list(value.get("flags")),
            hook_tools=value.get("hook_tools"),
        )

    def runtime_flags(self) -> list[RuntimeFlag]:
        """The well-formed flags (a malformed one is left out)."""
        return _valid(RuntimeFlag, self.flags)[0]

    def runtime_diagnostics(self) -> list[RuntimeDiagnostic | Any]:
        """Each item as a ``RuntimeDiagnostic``, or as it was sent when malformed."""
        return _runtime_diagnostics(self.diagnostics)

    def hook_tool_filters(self) -> dict[str, frozenset[str]]:
        """``register.hook_tools``: ``tool_call`` / ``tool_result`` → the only tools the
        process's hooks of that event apply to (an event absent: every tool; other events
        are not read). Raises ``ExtraError`` when malformed: the host then asks every hook."""
        if self.hook_tools is None:
            return {}
        if not isinstance(self.hook_tools, dict):
            raise ExtraError(f"hook_tools must be an object, got {type(self.hook_tools).__name__}")
        filters: dict[str, frozenset[str]] = {}
        for event in TOOL_HOOK_EVENTS:
            names = self.hook_tools.get(event)
            if names is None:
                continue
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise ExtraError(f"hook_tools.{event} must be a list of tool names")
            filters[event] = frozenset(names)
        return filters

    def owner_map(self) -> Owners | None:
        """The owners it sent (None: none); raises ``ExtraError`` when malformed."""
        return None if self.owners is None else _parse(Owners, self.owners, "owners")


@dataclass(frozen=True, slots=True)
class ToolExtras:
    """A tool ``response.gateway`` (``tool.parts``). Parsed on every tool call: a dataclass
    checked by hand, not a model."""

    parts: list[dict[str, Any]] | None = None
    details: Any = None
    has_details: bool = False
    structured: Any = None
    """``tool.output``: the structured result (any JSON value); read only when offered."""
    has_structured: bool = False

    @classmethod
    def parse(cls, value: Any, *, output: bool = False) -> ToolExtras:
        if not isinstance(value, dict):
            return cls()  # absent, or not an object: nothing structured to read
        parts = value.get("parts")
        kept = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else None
        has_structured = output and "structured" in value
        return cls(
            parts=kept,
            details=value.get("details"),
            has_details="details" in value,
            structured=value.get("structured") if has_structured else None,
            has_structured=has_structured,
        )

    @staticmethod
    def output_schema(spec: ToolSpec) -> tuple[dict[str, Any] | None, str | None]:
        """``tool.output``: the tool spec's ``gateway.output_schema`` when it is a valid JSON
        Schema of an object (MCP's rule for ``outputSchema``), and why not when it is not
        (``(None, None)``: the spec has none)."""
        extras = spec.gateway if isinstance(spec.gateway, dict) else {}
        if "output_schema" not in extras:
            return None, None
        schema = extras["output_schema"]
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return None, 'the output schema is not a JSON Schema with type "object"'
        problem = schema_problem(schema)
        if problem is not None:
            return None, f"the output schema is not a valid JSON Schema: {problem}"
        return schema, None


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


class RuntimeSkill(_Extra):
    """A skill a runtime found while running (e.g. Pi's ``resources_discover``)."""

    name: StrictStr
    description: StrictStr = ""
    path: StrictStr
    package: StrictStr | None = None


_Item = TypeVar("_Item", bound=BaseModel)


def _valid(model: type[_Item], items: list[Any]) -> tuple[list[_Item], list[str]]:
    specs: list[_Item] = []
    problems: list[str] = []
    for item in items:
        try:
            specs.append(model.model_validate(item))
        except ValidationError as error:
            problems.append(describe_validation_error(error))
    return specs, problems


class RegistrationUpdate(_Extra):
    """``update.gateway.registration`` (``registration.update``): the complete current tool
    list; optionally the complete current commands and the skills found while running, and
    (``register.owners``) who registered each."""

    tools: list[Any]
    active: list[StrictStr] | None = None
    commands: list[Any] | None = None
    skills: list[Any] | None = None
    owners: Owners | None = None

    def tool_specs(self) -> tuple[list[ToolSpec], list[str]]:
        """The valid tool specs, and a problem for each invalid one."""
        return _valid(ToolSpec, self.tools)

    def command_specs(self) -> tuple[list[CommandSpec] | None, list[str]]:
        """The valid command specs (None: the update does not list commands)."""
        if self.commands is None:
            return None, []
        return _valid(CommandSpec, self.commands)

    def runtime_skills(self) -> tuple[list[RuntimeSkill], list[str]]:
        return _valid(RuntimeSkill, self.skills or [])


@dataclass(frozen=True, slots=True)
class UpdateExtras:
    """An ``update.gateway``: progress, a registration update, diagnostics, or several."""

    progress: dict[str, Any] | None = None
    registration: Any = None
    has_registration: bool = False
    diagnostics: list[Any] = field(default_factory=list)

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
            diagnostics=_as_list(value.get("diagnostics")),
        )

    def runtime_diagnostics(self) -> list[RuntimeDiagnostic | Any]:
        """``update.diagnostics``: each item as a ``RuntimeDiagnostic``, or as it was sent."""
        return _runtime_diagnostics(self.diagnostics)

    def registration_update(self) -> RegistrationUpdate:
        """The registration delta; raises ``ExtraError`` when it is malformed."""
        return _parse(RegistrationUpdate, self.registration, "registration update")
