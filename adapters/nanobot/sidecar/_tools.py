"""nanobot tool objects: checked at ``register_tool``, executed on ``tool`` requests.

A tool that would make the host reject the whole ``register`` line (a name the protocol
refuses, a schema that is not JSON Schema, parameters that are not JSON) is refused here
instead, with a diagnostic, so the package's other registrations survive. The host still
validates every schema with ``jsonschema``; the check here is structural only, because
importing ``jsonschema`` would cost the sidecar ≈60 ms at start.
"""

from __future__ import annotations

import json
import re

from gateway.base import GatewayError

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["InvalidRegistration", "describe_tool", "render_result", "run_tool"]

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "array", "object", "null"})


class InvalidRegistration(GatewayError):
    """A registration the sidecar refuses; ``str()`` says why."""


def describe_tool(tool: Any) -> tuple[str, dict[str, Any]]:
    """The tool's name and its ``register`` entry; raises :class:`InvalidRegistration`."""
    try:
        name, description, parameters = tool.name, tool.description, tool.parameters
    except Exception as error:
        raise InvalidRegistration(f"reading name/description/parameters raised {error!r}") from None
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise InvalidRegistration(f"tool name {name!r} is not 1-64 of A-Z a-z 0-9 _ -")
    if not isinstance(description, str):
        raise InvalidRegistration(f"tool {name}: description is not a string")
    if not callable(getattr(tool, "execute", None)):
        raise InvalidRegistration(f"tool {name}: no callable execute(**kwargs)")
    if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
        raise InvalidRegistration(f"tool {name}: parameters must be a JSON Schema object")
    problem = _schema_problem(parameters, "parameters")
    if problem is None:
        try:
            json.dumps(parameters)
        except (TypeError, ValueError) as error:
            problem = f"parameters are not JSON: {error}"
    if problem is not None:
        raise InvalidRegistration(f"tool {name}: {problem}")
    spec: dict[str, Any] = {"name": name, "description": description, "input_schema": parameters}
    try:
        read_only = bool(getattr(tool, "read_only", False))
    except Exception:
        read_only = False
    if read_only:
        # nanobot's read_only ("side-effect free") is nimlet's read capability, which also
        # makes the tool available in plan mode.
        spec["capabilities"] = ["read"]
    return name, spec


def _schema_problem(schema: Any, where: str) -> str | None:
    if isinstance(schema, bool):
        return None
    if not isinstance(schema, dict):
        return f"{where} is not a schema object"
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    if any(not isinstance(k, str) or k not in _JSON_TYPES for k in kinds):
        return f"{where}.type {kind!r} is not a JSON Schema type"
    required = schema.get("required")
    if required is not None and (
        not isinstance(required, list) or not all(isinstance(r, str) for r in required)
    ):
        return f"{where}.required must be a list of strings"
    properties = schema.get("properties")
    if properties is not None:
        if not isinstance(properties, dict):
            return f"{where}.properties must be an object"
        for key, sub in properties.items():
            if problem := _schema_problem(sub, f"{where}.properties.{key}"):
                return problem
    for key in ("items", "additionalProperties"):
        if key in schema and (problem := _schema_problem(schema[key], f"{where}.{key}")):
            return problem
    if "enum" in schema and not isinstance(schema["enum"], list):
        return f"{where}.enum must be an array"
    return None


def render_result(result: Any) -> tuple[str, bool]:
    """Strings as they are (a ``ToolResult`` keeps its error flag), None as "", anything
    else as JSON."""
    if isinstance(result, str):
        return str(result), bool(getattr(result, "is_error", False))
    if result is None:
        return "", False
    try:
        return json.dumps(result, ensure_ascii=False, default=str), False
    except (TypeError, ValueError) as error:
        return f"tool result is not serialisable: {error}", True


async def run_tool(tool: Any, arguments: dict[str, Any]) -> tuple[str, bool]:
    """nanobot's call path: cast, validate, ``execute(**params)``; failures become errors."""
    try:
        params = arguments
        cast = getattr(tool, "cast_params", None)
        if callable(cast):
            params = cast(params)
        validate = getattr(tool, "validate_params", None)
        if callable(validate):
            problems = validate(params)
            if problems:
                return f"Invalid parameters for tool {tool.name!r}: " + "; ".join(problems), True
        result = tool.execute(**params)
        if hasattr(result, "__await__"):
            result = await result
    except (Exception, SystemExit) as error:
        # SystemExit too: sys.exit() in a tool must fail the call, not the sidecar.
        return str(error) or type(error).__name__, True
    return render_result(result)
