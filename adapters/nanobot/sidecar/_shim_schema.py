"""The JSON Schema subset nanobot's ``Tool`` casts and validates with.

Upstream's ``Tool.cast_params`` / ``validate_params`` (nanobot-upstream.md §3) cover
``type`` (with a nullable union), ``enum``, ``minimum``/``maximum``,
``minLength``/``maxLength``, ``required``, ``additionalProperties`` (bool or schema),
``items`` and ``minItems``/``maxItems``. Packages that call them on their own tools get the
same answers here; the host validates every call with full ``jsonschema`` anyway.
"""

from __future__ import annotations

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


__all__ = ["cast_value", "validate_value"]

_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
}
_TRUE, _FALSE = frozenset({"true", "1", "yes"}), frozenset({"false", "0", "no"})


def _type_of(schema: dict[str, Any]) -> tuple[str | None, bool]:
    """The non-null type name and whether null is allowed."""
    raw = schema.get("type")
    if isinstance(raw, list):
        return next((t for t in raw if t != "null"), None), "null" in raw
    return raw, bool(schema.get("nullable", False))


def cast_value(value: Any, schema: dict[str, Any]) -> Any:
    kind, _ = _type_of(schema)
    if kind == "object" and isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        return {
            key: cast_value(item, properties[key])
            if key in properties
            else cast_value(item, extra)
            if isinstance(extra, dict)
            else item
            for key, item in value.items()
        }
    if kind == "array" and isinstance(value, list):
        items = schema.get("items")
        return [cast_value(item, items) for item in value] if isinstance(items, dict) else value
    if isinstance(value, str) and kind in ("integer", "number"):
        try:
            return int(value) if kind == "integer" else float(value)
        except ValueError:
            return value
    if isinstance(value, str) and kind == "boolean":
        lowered = value.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else value
    if kind == "string" and value is not None and not isinstance(value, str):
        return str(value)
    return value


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def validate_value(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    kind, nullable = _type_of(schema)
    label = path or "parameter"
    if value is None and nullable:
        return []
    if kind in ("integer", "number") and (
        isinstance(value, bool) or not isinstance(value, _TYPES[kind])
    ):
        return [f"{label} should be {kind}"]
    if kind in _TYPES and not isinstance(value, _TYPES[kind]):
        return [f"{label} should be {kind}"]
    problems: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{label} must be one of {schema['enum']}")
    if kind in ("integer", "number"):
        if "minimum" in schema and value < schema["minimum"]:
            problems.append(f"{label} must be >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            problems.append(f"{label} must be <= {schema['maximum']}")
    elif kind == "string":
        if "minLength" in schema and len(value) < schema["minLength"]:
            problems.append(f"{label} must be at least {schema['minLength']} chars")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            problems.append(f"{label} must be at most {schema['maxLength']} chars")
    elif kind == "object":
        properties = schema.get("properties") or {}
        problems += [f"missing required {_join(path, k)}" for k in schema.get("required", ())
                     if k not in value]  # fmt: skip
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                problems += validate_value(item, properties[key], _join(path, key))
            elif extra is False:
                problems.append(f"unexpected parameter {_join(path, key)}")
            elif isinstance(extra, dict):
                problems += validate_value(item, extra, _join(path, key))
    elif kind == "array":
        if "minItems" in schema and len(value) < schema["minItems"]:
            problems.append(f"{label} must have at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            problems.append(f"{label} must be at most {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                problems += validate_value(item, schema["items"], f"{path}[{index}]")
    return problems
