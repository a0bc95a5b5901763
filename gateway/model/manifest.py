"""nimlet's two manifests, ``extension.json`` and ``tool.json``: the one reader both the
gateway's discovery and the nimlet adapter's ``inspect`` use, so a manifest that runs when
discovered is the manifest that installs.

The rules, from the nimlet document and upstream's reader (nimlet-upstream.md):

- ``extension.json``: ``name`` (non-empty string) and ``command`` (a non-empty array of
  non-empty strings) are required; ``response_timeout_seconds`` is a positive integer or
  ``null`` (no timeout), default 30.
- ``tool.json``: ``name``, ``description`` (a string, may be empty), ``command`` and
  ``input_schema`` (a valid JSON Schema object) are required; ``timeout_seconds`` is an
  integer ≥ 1, default 30; ``capabilities`` is an optional array of ``read``, ``user``,
  ``write``, ``shell``, ``network`` (omitted: write + shell + network).

Every problem is reported, not only the first; JSON's types are JSON's (``true`` is not a
number). Fields the reader does not know are listed apart: a newer nimlet may add fields,
so they are not problems. Discovery reports an unusable manifest the way nimlet does:
``skipping PATH: missing name``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from gateway.base import (
    CAPABILITIES,
    DEFAULT_CAPABILITIES,
    Diagnostic,
    lone_surrogate,
    schema_problem,
)
from gateway.model import _codes

__all__ = [
    "DEFAULT_TIMEOUT",
    "EXTENSION_FIELDS",
    "TOOL_FIELDS",
    "ExtensionManifest",
    "ManifestCheck",
    "ToolManifest",
    "check_extension",
    "check_tool",
    "load_extension_manifest",
    "load_tool_manifest",
]

DEFAULT_TIMEOUT = 30
EXTENSION_FIELDS: tuple[str, ...] = ("name", "command", "response_timeout_seconds")
TOOL_FIELDS: tuple[str, ...] = (
    "name",
    "description",
    "command",
    "timeout_seconds",
    "input_schema",
    "capabilities",
)


@dataclass(frozen=True, slots=True)
class ExtensionManifest:
    name: str
    command: tuple[str, ...]
    response_timeout_seconds: int | None = DEFAULT_TIMEOUT


@dataclass(frozen=True, slots=True)
class ToolManifest:
    name: str
    description: str
    command: tuple[str, ...]
    input_schema: dict[str, Any]
    timeout_seconds: int = DEFAULT_TIMEOUT
    capabilities: tuple[str, ...] | None = None

    @property
    def effective_capabilities(self) -> tuple[str, ...]:
        return DEFAULT_CAPABILITIES if self.capabilities is None else self.capabilities


_M = TypeVar("_M", ExtensionManifest, ToolManifest)


@dataclass(frozen=True, slots=True)
class ManifestCheck(Generic[_M]):
    """What a manifest says, with every problem found. ``manifest`` is None when any
    problem makes it unusable; ``values`` keeps what could be read, for inspection."""

    manifest: _M | None
    problems: list[str]
    unknown: list[str]
    values: dict[str, Any] = field(default_factory=dict)


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class _Fields:
    """Reads one JSON object's fields with JSON's types, recording each problem."""

    def __init__(self, data: dict[Any, Any], known: tuple[str, ...]) -> None:
        self.data = data
        self.problems: list[str] = []
        self.unknown = [str(key) for key in data if key not in known]

    def _wrong(self, key: str, what: str, value: object) -> None:
        self.problems.append(f"{key} must be {what} (got {_type_name(value)})")

    def string(self, key: str, *, allow_empty: bool = False) -> str | None:
        if key not in self.data:
            self.problems.append(f"missing {key}")
            return None
        value = self.data[key]
        if not isinstance(value, str):
            self._wrong(key, "a string", value)
            return None
        if not allow_empty and not value.strip():
            self.problems.append(f"{key} must not be empty")
            return None
        return value

    def command(self) -> tuple[str, ...]:
        if "command" not in self.data:
            self.problems.append("missing command")
            return ()
        value = self.data["command"]
        if not isinstance(value, list):
            self._wrong("command", "an array of strings", value)
            return ()
        if not value:
            self.problems.append("command must not be empty")
        items = []
        for index, item in enumerate(value):
            if isinstance(item, str) and item:
                items.append(item)
            else:
                self._wrong(f"command[{index}]", "a non-empty string", item)
        return tuple(items)

    def timeout(self, key: str, *, nullable: bool) -> int | None:
        value = self.data.get(key, DEFAULT_TIMEOUT)
        if value is None and nullable:
            return None
        # bool is an int subclass; JSON's true is not a number.
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self._wrong(key, "a positive integer" + (" or null" if nullable else ""), value)
            return DEFAULT_TIMEOUT
        return value

    def schema(self, key: str) -> dict[str, Any] | None:
        if key not in self.data:
            self.problems.append(f"missing {key}")
            return None
        value = self.data[key]
        if not isinstance(value, dict):
            self._wrong(key, "an object", value)
            return None
        problem = schema_problem(value)
        if problem is not None:
            self.problems.append(f"{key} is not a valid JSON Schema: {problem}")
        return value

    def capabilities(self) -> tuple[str, ...] | None:
        if "capabilities" not in self.data:
            return None
        value = self.data["capabilities"]
        if not isinstance(value, list):
            self._wrong("capabilities", "an array of strings", value)
            return None
        known: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str):
                self._wrong(f"capabilities[{index}]", "a string", item)
            elif item not in CAPABILITIES:
                self.problems.append(
                    f"capabilities has unknown capability {item!r}; expected some of "
                    f"{', '.join(sorted(CAPABILITIES))}"
                )
            else:
                known.append(item)
        return tuple(known)


def check_extension(data: object) -> ManifestCheck[ExtensionManifest]:
    if not isinstance(data, dict):
        return ManifestCheck(None, [f"not a JSON object (got {_type_name(data)})"], [])
    fields = _Fields(data, EXTENSION_FIELDS)
    name = fields.string("name")
    command = fields.command()
    timeout = fields.timeout("response_timeout_seconds", nullable=True)
    values = {"name": name, "command": list(command), "response_timeout_seconds": timeout}
    manifest = None
    if not fields.problems and name is not None:
        manifest = ExtensionManifest(name.strip(), command, timeout)
    return ManifestCheck(manifest, fields.problems, fields.unknown, values)


def check_tool(data: object) -> ManifestCheck[ToolManifest]:
    if not isinstance(data, dict):
        return ManifestCheck(None, [f"not a JSON object (got {_type_name(data)})"], [])
    fields = _Fields(data, TOOL_FIELDS)
    name = fields.string("name")
    description = fields.string("description", allow_empty=True)
    command = fields.command()
    timeout = fields.timeout("timeout_seconds", nullable=False) or DEFAULT_TIMEOUT
    schema = fields.schema("input_schema")
    capabilities = fields.capabilities()
    values = {
        "name": name,
        "description": description or "",
        "command": list(command),
        "timeout_seconds": timeout,
        "input_schema": schema if schema is not None else {},
        "capabilities": list(capabilities) if capabilities is not None else None,
    }
    manifest = None
    if not fields.problems and name is not None and schema is not None:
        manifest = ToolManifest(
            name.strip(), description or "", command, schema, timeout, capabilities
        )
    return ManifestCheck(manifest, fields.problems, fields.unknown, values)


def _read(path: Path) -> tuple[Any, str | None]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
        found = lone_surrogate(value)
        if found is not None:
            return None, f"a string is not text (a lone surrogate): “{found}”"
        return value, None
    except (OSError, UnicodeDecodeError) as error:
        return None, str(error)
    except json.JSONDecodeError as error:
        return None, f"invalid JSON at line {error.lineno} column {error.colno}"
    except RecursionError:
        return None, "the JSON is nested too deeply"


def _load(
    path: Path, check: Callable[[object], ManifestCheck[_M]]
) -> tuple[_M | None, Diagnostic | None]:
    data, unreadable = _read(path)
    if unreadable is not None:
        return None, _codes.MANIFEST_UNREADABLE(f"skipping {path}: {unreadable}")
    checked = check(data)
    if checked.manifest is None:
        name = checked.values.get("name")
        return None, _codes.MANIFEST_INVALID(
            f"skipping {path}: {'; '.join(checked.problems)}",
            package=name if isinstance(name, str) else None,
        )
    return checked.manifest, None


def load_extension_manifest(path: Path) -> tuple[ExtensionManifest | None, Diagnostic | None]:
    return _load(path, check_extension)


def load_tool_manifest(path: Path) -> tuple[ToolManifest | None, Diagnostic | None]:
    return _load(path, check_tool)
