"""pydantic's ValidationError as diagnostics that name the field and where it is."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from adapters.nanobot import _codes as codes
from gateway.base import Diagnostic

__all__ = ["format_location", "validation_diagnostics"]

# Shown instead of pydantic's generic wording, for the errors people actually make.
_MESSAGES = {
    "missing": "required field missing",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "list_type": "must be an array",
    "model_type": "must be an object",
    "dict_type": "must be an object",
    "invalid_key": "object keys must be strings",
}


def format_location(location: tuple[Any, ...]) -> str:
    """``("contributions", 2, "nmae")`` -> ``contributions[2].nmae``."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def validation_diagnostics(error: ValidationError, filename: str) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for item in error.errors(include_url=False, include_context=False, include_input=False):
        kind = item["type"]
        where = format_location(tuple(item["loc"]))
        if kind == "extra_forbidden":
            diagnostics.append(codes.NANOBOT_UNKNOWN_FIELD(f"{filename}: {where}: unknown field"))
            continue
        message = _MESSAGES.get(kind, item["msg"])
        if kind == "duplicate":
            # The message already names the repeated item and both positions.
            diagnostics.append(codes.NANOBOT_DUPLICATE(f"{filename}: {message}"))
            continue
        if kind == "literal_error":
            message = f"must be {item['msg'].removeprefix('Input should be ')}"
        prefix = f"{where}: " if where else ""
        diagnostics.append(codes.NANOBOT_MANIFEST_INVALID(f"{filename}: {prefix}{message}"))
    return diagnostics
