"""The Agent Plugins 1.0.0 documents' schemas (``schemas/agent-plugins-1.0.0``: written from
the specification's text, see its README) and validation of what the migration writes."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["MCP_SCHEMA_ID", "PLUGIN_SCHEMA_ID", "schema", "schema_problems"]

PLUGIN_SCHEMA_ID = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
MCP_SCHEMA_ID = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"


@functools.cache
def schema(name: str) -> dict[str, Any]:
    """``plugin`` or ``mcp``."""
    folder = resources.files(__package__) / "schemas" / "agent-plugins-1.0.0"
    loaded: dict[str, Any] = json.loads((folder / f"{name}.schema.json").read_text("utf-8"))
    return loaded


def schema_problems(name: str, document: Any) -> list[str]:
    validator = Draft202012Validator(schema(name))
    return [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    ]
