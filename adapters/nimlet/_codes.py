"""The diagnostic codes of nimlet packages: ``extension.json`` and ``tool.json``."""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

NIMLET_MANIFEST_INVALID = define_code(
    "nimlet.manifest_invalid",
    ERROR,
    "extension.json lacks name or command, or a field has the wrong type.",
    "name: string; command: non-empty array of strings; "
    "response_timeout_seconds: positive integer or null.",
)
NIMLET_MANIFEST_UNKNOWN_FIELD = define_code(
    "nimlet.manifest_unknown_field",
    WARNING,
    "extension.json or tool.json has a field nimlet does not read (likely a typo).",
    "Remove or correct the field.",
)
NIMLET_RUNTIME_ONLY = define_code(
    "nimlet.contributions_runtime_only",
    INFO,
    "A nimlet extension declares no contributions; its tools, commands and hooks "
    "arrive at runtime in `register`.",
    "Nothing to fix; audit a running instance to see them.",
)
NIMLET_TOOL_INVALID = define_code(
    "nimlet.tool_invalid",
    ERROR,
    "tool.json lacks a required field or a field has the wrong type.",
    "name, description: strings; command: non-empty string array; input_schema: object; "
    "timeout_seconds: integer >= 1.",
)
NIMLET_TOOL_BUILTIN = define_code(
    "nimlet.tool_builtin_name",
    WARNING,
    "A tool uses a nimlet built-in name; nimlet skips it.",
    "Rename the tool.",
)
