"""Manifests read from disk: ``extension.json`` and ``tool.json``.

A manifest that does not parse, or breaks a rule, becomes a diagnostic of the form
``skipping PATH: missing name`` — never an exception.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from . import _codes
from .diagnostics import Diagnostic
from .protocol import CAPABILITIES, DEFAULT_CAPABILITIES

M = TypeVar("M", bound=BaseModel)

__all__ = ["ExtensionManifest", "ToolManifest", "load_extension_manifest", "load_tool_manifest"]

_NonEmpty = Annotated[StrictStr, Field(min_length=1)]


class ExtensionManifest(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    name: _NonEmpty
    command: Annotated[list[_NonEmpty], Field(min_length=1)]
    response_timeout_seconds: Annotated[StrictInt, Field(gt=0)] | None = 30


class ToolManifest(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    name: _NonEmpty
    description: StrictStr = ""
    command: Annotated[list[_NonEmpty], Field(min_length=1)]
    timeout_seconds: Annotated[StrictInt, Field(ge=1)] = 30
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    capabilities: list[StrictStr] | None = None

    @property
    def effective_capabilities(self) -> tuple[str, ...]:
        return DEFAULT_CAPABILITIES if self.capabilities is None else tuple(self.capabilities)


def _first_problem(error: ValidationError) -> str:
    item = error.errors(include_url=False)[0]
    location = ".".join(str(part) for part in item["loc"])
    if item["type"] == "missing":
        return f"missing {location}"
    if item["type"] == "too_short" and location == "command":
        return "command must not be empty"
    message = item["msg"].removeprefix("Value error, ")
    return f"{location}: {message}" if location else message


def _read_json(path: Path) -> tuple[Any, Diagnostic | None]:
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError) as error:
        return None, _codes.MANIFEST_UNREADABLE(f"skipping {path}: {error}")
    except json.JSONDecodeError as error:
        return None, _codes.MANIFEST_UNREADABLE(
            f"skipping {path}: invalid JSON at line {error.lineno} column {error.colno}"
        )


def _load(model: type[M], path: Path) -> tuple[M | None, Diagnostic | None]:
    data, problem = _read_json(path)
    if problem is not None:
        return None, problem
    if not isinstance(data, dict):
        return None, _codes.MANIFEST_INVALID(f"skipping {path}: not a JSON object")
    try:
        return model.model_validate(data), None
    except ValidationError as error:
        name = data.get("name") if isinstance(data.get("name"), str) else None
        return None, _codes.MANIFEST_INVALID(
            f"skipping {path}: {_first_problem(error)}", package=name
        )


def load_extension_manifest(path: Path) -> tuple[ExtensionManifest | None, Diagnostic | None]:
    return _load(ExtensionManifest, path)


def load_tool_manifest(path: Path) -> tuple[ToolManifest | None, Diagnostic | None]:
    manifest, problem = _load(ToolManifest, path)
    if manifest is None:
        return None, problem
    unknown = sorted(set(manifest.capabilities or ()) - CAPABILITIES)
    if unknown:
        return None, _codes.MANIFEST_INVALID(
            f"skipping {path}: unknown capabilities {unknown}", package=manifest.name
        )
    return manifest, None
