"""Tool arguments against a tool's ``input_schema``, and schemas against their metaschema,
each at the cost it needs on a hot path.

``jsonschema`` is the authority: it picks the draft from ``$schema`` and words every error.
It is also slow for the one question asked on every call ("are these arguments valid?"), so
a schema made only of keywords that mean the same in every draft gets a compiled
``fastjsonschema`` validator (about 30 times faster); arguments it rejects are then checked by
``jsonschema``, which decides and says why. A schema is compiled on its first call and
checked against its metaschema once per process, however many tools share it.

``jsonschema`` is imported only when it must decide: its import costs a short command
(``gateway call``) 40-80 ms, more than the extension it runs takes to start. A schema made
of portable keywords whose values have the plain form every draft's metaschema requires
(``_plainly_valid``: the common tool schema) is known valid without it; any other is
checked by ``jsonschema``, which decides and words the problem.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["ArgumentValidator", "schema_problem"]

_PORTABLE_KEYWORDS: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "enum", "const",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
        "minProperties", "maxProperties", "anyOf", "oneOf", "allOf", "not", "format",
        "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    }
)  # fmt: skip
"""Keywords whose meaning is the same in drafts 6 to 2020-12 (``format`` is not asserted by
either validator). ``items`` qualifies only in its single-schema form."""
_SUBSCHEMA_MAPS: Final = ("properties",)
_SUBSCHEMAS: Final = ("additionalProperties", "items", "not")
_SUBSCHEMA_LISTS: Final = ("anyOf", "oneOf", "allOf")
_PORTABLE_DRAFTS: Final = frozenset(
    {
        "",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    }
)

_compiled: dict[str, Callable[[Any], Any] | None] = {}
_checked: dict[str, str | None] = {}


def _key(schema: Mapping[str, Any]) -> str | None:
    try:
        return json.dumps(schema, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` is not a valid JSON Schema (for its draft), or None. Cached."""
    key = _key(schema)
    if key is None:
        return "the schema cannot be read (not JSON, or nested too deeply)"
    if key not in _checked:
        _checked[key] = None if _plainly_valid(schema) else _metaschema_problem(schema)
    return _checked[key]


def _metaschema_problem(schema: Mapping[str, Any]) -> str | None:
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    if not isinstance(schema.get("$schema", ""), str):
        return "$schema is not a string"  # jsonschema fails on it rather than saying so
    try:
        validator_for(schema).check_schema(dict(schema))
    except SchemaError as error:
        return error.message
    except RecursionError:
        return "the schema is nested too deeply"
    return None


_TYPES: Final = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _type(value: Any) -> bool:
    if isinstance(value, str):
        return value in _TYPES
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, str) and v in _TYPES for v in value)
        and len(set(value)) == len(value)
    )


def _unique_strings(value: Any, *, empty: bool) -> bool:
    return (
        isinstance(value, list)
        and (empty or bool(value))
        and all(isinstance(v, str) for v in value)
        and len(set(value)) == len(value)
    )


def _regex(value: Any) -> bool:
    # The metaschemas give "pattern" the "regex" format, which check_schema asserts.
    try:
        return isinstance(value, str) and re.compile(value) is not None
    except re.error:
        return False


_PLAIN: Final[dict[str, Callable[[Any], bool]]] = {
    "type": _type,
    "required": lambda v: _unique_strings(v, empty=True),
    "enum": lambda v: _unique_strings(v, empty=False),  # other enums: jsonschema decides
    "const": lambda v: True,
    "default": lambda v: True,
    "examples": lambda v: isinstance(v, list),
    "minimum": _number,
    "maximum": _number,
    "exclusiveMinimum": _number,
    "exclusiveMaximum": _number,
    "multipleOf": lambda v: _number(v) and v > 0,
    "minLength": _count,
    "maxLength": _count,
    "minItems": _count,
    "maxItems": _count,
    "minProperties": _count,
    "maxProperties": _count,
    "pattern": _regex,
    "uniqueItems": lambda v: isinstance(v, bool),
    "deprecated": lambda v: isinstance(v, bool),
    "readOnly": lambda v: isinstance(v, bool),
    "writeOnly": lambda v: isinstance(v, bool),
    "format": lambda v: isinstance(v, str),
    "title": lambda v: isinstance(v, str),
    "description": lambda v: isinstance(v, str),
}
"""Portable keywords whose value is a plain JSON value, each with the strictest form any
draft's metaschema (6 to 2020-12) asks of it."""


def _plainly_valid(schema: Any, depth: int = 0) -> bool:
    """True only when ``schema`` is certainly valid in whichever draft it names: portable
    keywords only (``_PORTABLE_KEYWORDS``), each value of the form every metaschema
    requires. False leaves the verdict to ``jsonschema`` (it may still be valid)."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > 32:
        return False
    for keyword, value in schema.items():
        if keyword == "$schema":
            if depth > 0 or not isinstance(value, str) or value not in _PORTABLE_DRAFTS - {""}:
                return False
        elif keyword == "properties":
            if not isinstance(value, dict):
                return False
            if not all(_plainly_valid(child, depth + 1) for child in value.values()):
                return False
        elif keyword in ("additionalProperties", "items", "not"):
            if not _plainly_valid(value, depth + 1):  # "items" in its single-schema form
                return False
        elif keyword in ("anyOf", "oneOf", "allOf"):
            if not isinstance(value, list) or not value:
                return False
            if not all(_plainly_valid(child, depth + 1) for child in value):
                return False
        else:
            check = _PLAIN.get(keyword)
            if check is None or not check(value):
                return False
    return True


def _portable(schema: Any, depth: int = 0) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or depth > 32:
        return False
    if not set(schema) - {"$schema"} <= _PORTABLE_KEYWORDS | {"items"}:
        return False
    if depth == 0 and schema.get("$schema", "") not in _PORTABLE_DRAFTS:
        return False
    if "$schema" in schema and depth > 0:
        return False
    for name in _SUBSCHEMA_MAPS:
        children = schema.get(name, {})
        if not isinstance(children, dict):
            return False
        if not all(_portable(child, depth + 1) for child in children.values()):
            return False
    for name in _SUBSCHEMAS:
        if name in schema and not _portable(schema[name], depth + 1):
            return False
    for name in _SUBSCHEMA_LISTS:
        children = schema.get(name, [])
        if not isinstance(children, list):
            return False
        if not all(_portable(child, depth + 1) for child in children):
            return False
    return True


def _compile(schema: Mapping[str, Any], key: str) -> Callable[[Any], Any] | None:
    if key not in _compiled:
        import fastjsonschema

        compiled = None
        if _portable(schema):
            try:
                compiled = fastjsonschema.compile(
                    dict(schema), use_default=False, use_formats=False
                )
            except (fastjsonschema.JsonSchemaDefinitionException, RecursionError, ValueError):
                compiled = None  # jsonschema alone then
        _compiled[key] = compiled
    return _compiled[key]


class ArgumentValidator:
    """Checks one tool's arguments. Build it when the tool registers; it compiles on the
    first call."""

    __slots__ = ("_fast", "_key", "_schema", "_slow")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        self._key = _key(schema)
        self._fast: Callable[[Any], Any] | None = None
        self._slow: Validator | None = None

    def problem(self, arguments: dict[str, Any]) -> str | None:
        """None when ``arguments`` are valid, else the first problem and where it is."""
        if self._fast is None and self._key is not None:
            self._fast = _compile(self._schema, self._key)
            self._key = None  # compiled (or found not compilable) once
        if self._fast is not None:
            try:
                self._fast(arguments)
                return None
            # fastjsonschema's JsonSchemaValueException is a ValueError; any other error
            # here leaves the verdict to jsonschema too.
            except (ValueError, RecursionError, TypeError):
                pass  # jsonschema decides, and words it
        return self._explain(arguments)

    def _explain(self, arguments: dict[str, Any]) -> str | None:
        from jsonschema.validators import validator_for

        if self._slow is None:
            self._slow = validator_for(self._schema)(self._schema)
        try:
            errors = sorted(self._slow.iter_errors(arguments), key=lambda e: list(e.path))
        except RecursionError:
            return "the arguments are nested too deeply to check"
        if not errors:
            return None
        where = "/".join(str(part) for part in errors[0].absolute_path) or "(root)"
        takes = _arguments_taken(self._schema) if where == "(root)" else ""
        return f"{errors[0].message} at {where}" + (f"; it takes {takes}" if takes else "")


_SHOWN_ARGUMENTS: Final = 12


def _arguments_taken(schema: Mapping[str, Any]) -> str:
    """The arguments an object schema names, required first, each with its type (``kind
    (string, required), scope (string)``): what a caller who got the shape wrong needs, as
    no plain listing shows a tool's schema."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return "no arguments" if schema.get("additionalProperties") is False else ""
    required = schema.get("required")
    needed = [name for name in properties if isinstance(required, list) and name in required]
    names = [*needed, *(name for name in properties if name not in needed)]
    said = []
    for name in names[:_SHOWN_ARGUMENTS]:
        spec = properties[name]
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        kind = "/".join(map(str, kind)) if isinstance(kind, list) else kind
        notes = [str(kind)] if isinstance(kind, str) else []
        notes += ["required"] if name in needed else []
        said.append(f"{name} ({', '.join(notes)})" if notes else str(name))
    more = len(names) - _SHOWN_ARGUMENTS
    return ", ".join(said) + (f" and {more} more" if more > 0 else "")
