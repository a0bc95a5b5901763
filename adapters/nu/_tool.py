"""Nu ``tool.yaml``: one tool, bundled and run in a fresh process per call.

Fields per the Nu document's example (name, version, description, args_schema,
idempotency, secrets, entry); idempotency uses rebuno's vocabulary, which the Nu
document quotes. The Nu format has no public implementation (see nu-notes.md), so these
rules are the project's reading of its spec, not a copy of a real validator.
"""

from __future__ import annotations

import posixpath
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters._fields import Fields
from adapters._files import ABSENT, Inspection, fits, jsonable, type_name
from adapters.nu import _codes as codes
from gateway.base import schema_problem
from gateway.model import Contribution

__all__ = ["IDEMPOTENCY", "TOOL_FIELDS", "check_tool_yaml"]

TOOL_FIELDS: Final = (
    "name",
    "version",
    "description",
    "args_schema",
    "idempotency",
    "secrets",
    "entry",
)
IDEMPOTENCY: Final = ("safe_to_retry", "at_most_once")


def check_tool_yaml(inspection: Inspection, rel: str, namespace: str | None) -> Contribution | None:
    """A tool contribution from ``rel``, or None when the file is unusable."""
    data = inspection.read_yaml(rel)
    if data is ABSENT:
        return None
    if not isinstance(data, dict):
        inspection.add(
            adapters_codes.NOT_AN_OBJECT(f"{rel}: top level is {type_name(data)}, not a mapping")
        )
        return None
    fields = Fields(inspection, codes.NU_TOOL_INVALID, rel, data)
    name = fields.string("name", required=True)
    version = fields.integer("version", minimum=1)
    if not fields.present("version"):
        fields.problem("version", "is required", show=False)
    description = fields.string("description", required=True, allow_empty=True)
    schema = fields.mapping("args_schema", required=True)
    if schema is not None and schema.get("type", "object") != "object":
        fields.problem("args_schema.type", "must be 'object'", schema.get("type"))
    elif schema is not None and (problem := _schema_problem(schema)) is not None:
        fields.problem("args_schema", f"is not a valid JSON Schema: {problem}", show=False)
    idempotency = IDEMPOTENCY[0]
    if fields.present("idempotency"):
        value = data["idempotency"]
        if value in IDEMPOTENCY:
            idempotency = value
        else:
            fields.problem("idempotency", f"must be one of {', '.join(IDEMPOTENCY)}", value)
    secrets = fields.string_list("secrets")
    entry_raw = fields.string("entry", required=True)
    fields.unknown(TOOL_FIELDS, codes.NU_MANIFEST_UNKNOWN_FIELD)

    tool_dir = posixpath.dirname(rel)
    entry = None
    if entry_raw is not None:
        # The entry is relative to the tool's folder, and must stay in the package: Nu
        # bundles each tool with what it imports "as long as every import stays inside".
        entry = inspection.resolve(posixpath.join(tool_dir, entry_raw), label=f"{rel}: entry")
    if name is None:
        return None
    refused = None
    if namespace and not name.startswith(f"{namespace}__"):
        refused = f"its name does not start with {namespace}__"
        inspection.add(
            codes.NU_TOOL_NOT_NAMESPACED(
                f"{rel}: tool {name!r} does not start with {namespace}__; refused"
            )
        )
    return Contribution(
        kind="tool",
        name=name,
        description=description or "",
        detail={
            "path": rel,
            "runtime": "nu-tool",
            "version": version,
            "idempotency": idempotency,
            "secrets": secrets,
            "entry": entry,
            "args_schema": jsonable(schema) if schema is not None else {},
            "valid": not fields.failed,
            "refused": refused,
        },
    )


_SCHEMA_SIZE: Final = 10_000
_SCHEMA_DEPTH: Final = 32


def _schema_problem(schema: dict[str, Any]) -> str | None:
    """What makes ``schema`` invalid under its own ``$schema`` (default: the latest draft)."""
    if not fits(schema, _SCHEMA_DEPTH, _SCHEMA_SIZE):
        return (
            f"it is larger than a tool's arguments need (more than {_SCHEMA_SIZE:,} values "
            f"or {_SCHEMA_DEPTH} levels once its YAML aliases are expanded)"
        )
    if schema_problem(schema) is None:
        return None  # known valid, often without importing jsonschema (every call inspects)
    import jsonschema

    try:
        validator = jsonschema.validators.validator_for(schema)
        validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        where = ".".join(str(part) for part in error.absolute_path)
        return f"{where + ': ' if where else ''}{error.message}"[:300]
    except (TypeError, ValueError, RecursionError) as error:
        return str(error)[:300]
    return None
