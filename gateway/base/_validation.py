"""Tool arguments against a tool's ``input_schema``, and schemas against their metaschema,
each at the cost it needs on a hot path.

``jsonschema`` is the authority: it picks the draft from ``$schema`` and words every error.
It is also slow for the one question asked on every call ("are these arguments valid?"), so
a schema made only of keywords that mean the same in every draft gets a compiled
``fastjsonschema`` validator (about 30 times faster); arguments it rejects are then checked by
``jsonschema``, which decides and says why. A schema is compiled on its first call and
checked against its metaschema once per process, however many tools share it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

import fastjsonschema
from jsonschema import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

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
        try:
            validator_for(schema).check_schema(dict(schema))
            _checked[key] = None
        except SchemaError as error:
            _checked[key] = error.message
        except RecursionError:
            _checked[key] = "the schema is nested too deeply"
    return _checked[key]


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
            except (fastjsonschema.JsonSchemaValueException, RecursionError, TypeError):
                pass  # jsonschema decides, and words it
        return self._explain(arguments)

    def _explain(self, arguments: dict[str, Any]) -> str | None:
        if self._slow is None:
            self._slow = validator_for(self._schema)(self._schema)
        try:
            errors = sorted(self._slow.iter_errors(arguments), key=lambda e: list(e.path))
        except RecursionError:
            return "the arguments are nested too deeply to check"
        if not errors:
            return None
        where = "/".join(str(part) for part in errors[0].absolute_path) or "(root)"
        return f"{errors[0].message} at {where}"
