"""Typed field reads for the hand-checked manifests (nimlet, Nu, Pi, OpenClaw).

These formats are not strict like nanobot's, so a pydantic model would either reject
too much or say too little. A :class:`Fields` reads one field at a time, with JSON's
types (a bool is not an integer), and reports a wrong field with the file and the key:
``tools/search/tool.yaml: version must be a positive integer (got a string)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from adapters._files import Inspection, type_name
from gateway.base import DiagnosticCode

__all__ = ["Fields"]


@dataclass(slots=True)
class Fields:
    inspection: Inspection
    code: DiagnosticCode  # what a wrong field is reported as
    where: str  # the file (and key path) the fields live in, for messages
    data: dict[Any, Any]
    failed: bool = False

    def problem(self, key: str, message: str, value: object = None, *, show: bool = True) -> None:
        got = f" (got {type_name(value)})" if show else ""
        self.inspection.add(self.code(f"{self.where}: {key} {message}{got}"))
        self.failed = True

    def present(self, key: str) -> bool:
        return key in self.data

    def string(self, key: str, *, required: bool = False, allow_empty: bool = False) -> str | None:
        """The string at ``key``; None when absent (reported if required) or wrong."""
        if key not in self.data:
            if required:
                self.problem(key, "is required", show=False)
            return None
        value = self.data[key]
        if not isinstance(value, str) or (not allow_empty and not value.strip()):
            self.problem(key, "must be a non-empty string", value)
            return None
        return value

    def string_list(
        self, key: str, *, required: bool = False, non_empty: bool = False
    ) -> list[str]:
        """The strings at ``key``; wrong items are reported and dropped."""
        if key not in self.data:
            if required:
                self.problem(key, "is required", show=False)
            return []
        value = self.data[key]
        if not isinstance(value, list):
            self.problem(key, "must be an array of strings", value)
            return []
        items: list[str] = []
        for index, item in enumerate(value):
            if isinstance(item, str) and item.strip():
                items.append(item)
            else:
                self.problem(f"{key}[{index}]", "must be a non-empty string", item)
        if non_empty and not value:
            self.problem(key, "must not be empty", show=False)
        return items

    def integer(self, key: str, *, minimum: int, nullable: bool = False) -> int | None:
        """An int >= minimum; None when absent, null (if allowed) or wrong."""
        value = self.data.get(key)
        if key not in self.data or (value is None and nullable):
            return None
        # bool is an int subclass; JSON's true is not a number.
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
            self.problem(key, f"must be {what}{' or null' if nullable else ''}", value)
            return None
        return value

    def mapping(self, key: str, *, required: bool = False) -> dict[Any, Any] | None:
        if key not in self.data:
            if required:
                self.problem(key, "is required", show=False)
            return None
        value = self.data[key]
        if not isinstance(value, dict):
            self.problem(key, "must be an object", value)
            return None
        return value

    def unknown(self, known: Iterable[str], code: DiagnosticCode) -> list[str]:
        """Report keys outside ``known`` (with ``code``) and return them."""
        allowed = set(known)
        extra = [repr(key) if not isinstance(key, str) else key for key in self.data]
        extra = [key for key in extra if key not in allowed]
        for key in extra:
            self.inspection.add(code(f"{self.where}: unknown field {key}"))
        return extra
