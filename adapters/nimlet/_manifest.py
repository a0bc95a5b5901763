"""nimlet's two manifests: ``extension.json`` (a long-running extension) and
``tool.json`` (a tool spawned per call), checked field by field per the nimlet spec."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any, Final

from adapters import _codes as codes
from adapters._base import Contribution
from adapters._fields import Fields
from adapters._files import Inspection, is_absolute, normalize_relative, safe_is_file
from gateway.protocol import BUILTIN_TOOL_NAMES, CAPABILITIES

__all__ = [
    "BUILTIN_TOOLS",
    "CAPABILITIES",
    "ExtensionManifest",
    "check_extension",
    "check_tool",
    "command_entries",
]

EXTENSION_FIELDS: Final = ("name", "command", "response_timeout_seconds")
TOOL_FIELDS: Final = (
    "name",
    "description",
    "command",
    "timeout_seconds",
    "input_schema",
    "capabilities",
)
# The protocol's own lists: the gateway core is where nimlet's rules live.
BUILTIN_TOOLS: Final = BUILTIN_TOOL_NAMES
DEFAULT_TIMEOUT: Final = 30
# Interpreters whose first argument is usually the script (["python3", "ext.py"]).
INTERPRETERS: Final = frozenset(
    {"python", "python3", "node", "bun", "deno", "bash", "sh", "ruby", "perl", "uv", "nim"}
)


@dataclass(slots=True)
class ExtensionManifest:
    name: str | None
    command: list[str] = field(default_factory=list)
    response_timeout_seconds: int | None = DEFAULT_TIMEOUT
    valid: bool = True


def check_extension(inspection: Inspection, data: dict[str, Any], where: str) -> ExtensionManifest:
    fields = Fields(inspection, codes.NIMLET_MANIFEST_INVALID, where, data)
    name = fields.string("name", required=True)
    command = fields.string_list("command", required=True, non_empty=True)
    timeout: int | None = DEFAULT_TIMEOUT
    if fields.present("response_timeout_seconds"):
        timeout = fields.integer("response_timeout_seconds", minimum=1, nullable=True)
    fields.unknown(EXTENSION_FIELDS, codes.NIMLET_MANIFEST_UNKNOWN_FIELD)
    return ExtensionManifest(
        name=name.strip() if name else None,
        command=command,
        response_timeout_seconds=timeout,
        valid=not fields.failed,
    )


def check_tool(inspection: Inspection, data: dict[str, Any], where: str) -> Contribution | None:
    """A tool contribution from a tool.json, or None when it is unusable."""
    fields = Fields(inspection, codes.NIMLET_TOOL_INVALID, where, data)
    name = fields.string("name", required=True)
    description = fields.string("description", required=True, allow_empty=True)
    command = fields.string_list("command", required=True, non_empty=True)
    timeout = DEFAULT_TIMEOUT
    if fields.present("timeout_seconds"):
        timeout = fields.integer("timeout_seconds", minimum=1) or DEFAULT_TIMEOUT
    schema = fields.mapping("input_schema", required=True)
    capabilities = fields.string_list("capabilities")
    for capability in capabilities:
        if capability not in CAPABILITIES:
            fields.problem("capabilities", f"has unknown capability {capability!r}", show=False)
    fields.unknown(TOOL_FIELDS, codes.NIMLET_MANIFEST_UNKNOWN_FIELD)
    if name is None:
        return None
    if name in BUILTIN_TOOLS:
        inspection.add(codes.NIMLET_TOOL_BUILTIN(f"{where}: {name!r} is a nimlet built-in tool"))
    tool_dir = posixpath.dirname(where)
    return Contribution(
        kind="tool",
        name=name,
        description=description or "",
        detail={
            "path": where,
            "runtime": "nimlet-tool",
            "command": command,
            "entries": command_entries(inspection, command, tool_dir, where),
            "timeout_seconds": timeout,
            "input_schema": schema if schema is not None else {},
            # Omitted capabilities mean write + shell + network (nimlet's unsafe default).
            "capabilities": capabilities or ["write", "shell", "network"],
            "valid": not fields.failed,
        },
    )


def command_entries(inspection: Inspection, command: list[str], base: str, where: str) -> list[str]:
    """Package files a command runs: command[0] when it holds a ``/`` (nimlet resolves it
    against the extension folder), else an interpreter's script argument if shipped."""
    if not command:
        return []
    program = command[0]
    if "/" in program or "\\" in program:
        if is_absolute(program):
            return []  # a program on this machine, not part of the package
        rel = inspection.resolve(posixpath.join(base, program), label=f"{where}: command[0]")
        return [rel] if rel else []
    if program in INTERPRETERS and len(command) > 1:
        script = normalize_relative(posixpath.join(base, command[1]))
        path = inspection.root / (script or ".")
        if script and safe_is_file(path) and inspection.inside(path):
            return [script]
    return []
