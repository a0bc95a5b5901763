"""nimlet's two manifests as the adapter reports them: the gateway's own reader
(``gateway.model.manifest``) decides what is valid, so what inspects cleanly is what runs; this
module turns its problems into diagnostics, warns about unknown fields and finds the
package files a command runs."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any, Final

from adapters._files import Inspection, is_absolute, normalize_relative, safe_is_file
from adapters.nimlet import _codes as codes
from gateway.base import BUILTIN_TOOL_NAMES, DEFAULT_CAPABILITIES, DiagnosticCode
from gateway.model import Contribution
from gateway.model import manifest as core

__all__ = ["ExtensionManifest", "check_extension", "check_tool", "command_entries"]

# Interpreters whose first argument is usually the script (["python3", "ext.py"]).
INTERPRETERS: Final = frozenset(
    {"python", "python3", "node", "bun", "deno", "bash", "sh", "ruby", "perl", "uv", "nim"}
)


@dataclass(slots=True)
class ExtensionManifest:
    name: str | None
    command: list[str] = field(default_factory=list)
    response_timeout_seconds: int | None = core.DEFAULT_TIMEOUT
    valid: bool = True


def _report(
    inspection: Inspection,
    checked: core.ManifestCheck[Any],
    code: DiagnosticCode,
    where: str,
) -> None:
    for problem in checked.problems:
        inspection.add(code(f"{where}: {problem}"))
    for key in checked.unknown:
        inspection.add(codes.NIMLET_MANIFEST_UNKNOWN_FIELD(f"{where}: unknown field {key}"))


def check_extension(inspection: Inspection, data: dict[str, Any], where: str) -> ExtensionManifest:
    checked = core.check_extension(data)
    _report(inspection, checked, codes.NIMLET_MANIFEST_INVALID, where)
    name = checked.values.get("name")
    return ExtensionManifest(
        name=name.strip() if isinstance(name, str) and name.strip() else None,
        command=checked.values.get("command", []),
        response_timeout_seconds=checked.values.get(
            "response_timeout_seconds", core.DEFAULT_TIMEOUT
        ),
        valid=checked.manifest is not None,
    )


def check_tool(inspection: Inspection, data: dict[str, Any], where: str) -> Contribution | None:
    """A tool contribution from a tool.json, or None when it has no usable name."""
    checked = core.check_tool(data)
    _report(inspection, checked, codes.NIMLET_TOOL_INVALID, where)
    values = checked.values
    name = values.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    name = name.strip()
    if name in BUILTIN_TOOL_NAMES:
        inspection.add(codes.NIMLET_TOOL_BUILTIN(f"{where}: {name!r} is a nimlet built-in tool"))
    tool_dir = posixpath.dirname(where)
    capabilities = values["capabilities"]
    return Contribution(
        kind="tool",
        name=name,
        description=values["description"],
        detail={
            "path": where,
            "runtime": "nimlet-tool",
            "command": values["command"],
            "entries": command_entries(inspection, values["command"], tool_dir, where),
            "timeout_seconds": values["timeout_seconds"],
            "input_schema": values["input_schema"],
            # Omitted capabilities mean write + shell + network (nimlet's unsafe default).
            "capabilities": list(DEFAULT_CAPABILITIES if capabilities is None else capabilities),
            "valid": checked.manifest is not None,
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
