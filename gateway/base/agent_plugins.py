"""The Agent Plugins 1.0.0 documents' JSON Schemas (``schemas/agent-plugins-1.0.0``: written
from the specification's text, see its README), shared by the two sides that handle the
format: ``gateway migrate`` validates what it writes, the ``agent-plugins`` adapter what it
reads."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = [
    "MCP_SCHEMA_ID",
    "PLUGIN_SCHEMA_ID",
    "SCHEMA_HOST",
    "schema",
    "schema_problems",
    "variant_problems",
]

PLUGIN_SCHEMA_ID = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
MCP_SCHEMA_ID = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
SCHEMA_HOST = "https://agent-plugins.org/schemas/"
"""Every version's identifiers start with this: a ``$schema`` under it that is not the
1.0.0 one is a version this reader does not know (said, not guessed at)."""


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """``plugin`` or ``mcp``."""
    folder = resources.files(__package__) / "schemas" / "agent-plugins-1.0.0"
    loaded: dict[str, Any] = json.loads((folder / f"{name}.schema.json").read_text("utf-8"))
    return loaded


@functools.cache
def _validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # only when a document is checked: ~0.15 s

    return Draft202012Validator(schema(name))


def schema_problems(name: str, document: Any) -> list[str]:
    """Each way ``document`` breaks the ``name`` schema, as ``path: message`` lines."""
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
        for error in sorted(_validator(name).iter_errors(document), key=lambda e: list(e.path))
    ]


def variant_problems(variant: str, entry: Any) -> list[str]:
    """Each way one ``mcp.json`` server entry breaks ``$defs/<variant>`` (``stdio`` or
    ``remote``): the schema's ``oneOf`` alone says only that no variant matched."""
    from jsonschema import Draft202012Validator

    defs = schema("mcp")["$defs"]
    validator = Draft202012Validator({**defs[variant], "$defs": defs})
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(entry)'}: {error.message}"
        for error in sorted(validator.iter_errors(entry), key=lambda e: list(e.path))
    ]
