"""Reading a Gemini CLI extension strictly, by Gemini CLI's own reader (google-gemini/gemini-cli
``packages/cli/src/config/extension.ts`` ``ExtensionConfig``, ``extension-manager.ts``
``loadExtensionConfig``; there is no JSON Schema for it): ``gemini-extension.json``, its
``mcpServers`` (core ``MCPServerConfig``), context files, ``settings``, ``skills/``,
``commands/**/*.toml`` (``_commands``), ``hooks/hooks.json`` (the plugin host's reader of
Gemini CLI's hooks), ``agents/`` and ``policies/``.

What stops Gemini CLI from loading the extension (no ``name``/``version``, a bad name, a
context file outside it) refuses it here too; what Gemini drops quietly (a missing context
file, an invalid skill) is a diagnostic; what only Gemini CLI's interface can use is
``gemini.unsupported`` naming the field. Reads files only.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote

from adapters import _codes as adapters_codes
from adapters._files import Inspection, normalize_relative, safe_is_dir, safe_is_file, type_name
from adapters._markdown import skill_contribution
from adapters.gemini import _codes as codes
from adapters.gemini._commands import read_commands
from adapters.plugin_host import GEMINI_EVENT_OF, GEMINI_UNSUPPORTED_EVENTS, read_gemini_hooks
from gateway.base import Severity
from gateway.model import Contribution

__all__ = ["MANIFEST", "ExtensionReading", "hydrate", "is_gemini_extension", "read_extension"]

MANIFEST: Final = "gemini-extension.json"
DEFAULT_CONTEXT: Final = "GEMINI.md"
_NAME: Final = re.compile(r"^[a-zA-Z0-9-]+$")
_VARIABLE: Final = re.compile(r"\$\{(.*?)\}")
_FIELDS: Final = frozenset({
    "name", "version", "description", "mcpServers", "contextFileName", "excludeTools",
    "settings", "themes", "plan", "migratedTo",
})  # fmt: skip
_SERVER_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "command": str, "args": list, "env": dict, "cwd": str, "url": str, "httpUrl": str,
    "headers": dict, "tcp": str, "type": str, "timeout": (int, float), "trust": bool,
    "description": str, "includeTools": list, "excludeTools": list, "oauth": dict,
    "authProviderType": str, "targetAudience": str, "targetServiceAccount": str,
}  # fmt: skip
_SKILL_NAME_OUT: Final = re.compile(r'[:\\/<>*?"|]')


@dataclass(slots=True)
class ExtensionReading:
    name: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    valid: bool = False
    contributions: list[Contribution] = field(default_factory=list)
    stdio: dict[str, dict[str, Any]] = field(default_factory=dict)
    remote: dict[str, str] = field(default_factory=dict)
    settings: list[str] = field(default_factory=list)
    hooks: dict[str, Any] | None = None
    """hooks/hooks.json as written, when at least one of its hooks can run."""
    unsupported_hook_events: list[str] = field(default_factory=list)


def is_gemini_extension(inspection: Inspection) -> bool:
    return safe_is_file(inspection.root / MANIFEST)


def hydrate(value: str, variables: dict[str, str]) -> str:
    """Gemini's ``hydrateString``: ``${name}`` from the context, unknown ones left as they are."""
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), value)


def read_extension(inspection: Inspection) -> ExtensionReading:
    reading = ExtensionReading()
    data = inspection.read_json_object(MANIFEST)
    if data is None:
        return reading
    reading.manifest = data
    problems = _manifest_problems(data)
    if isinstance(data.get("name"), str):
        reading.name = data["name"]
    for problem in problems:
        inspection.add(codes.GEMINI_MANIFEST_INVALID(f"{MANIFEST}: {problem}"))
    if problems:
        return reading
    reading.valid = True
    data = reading.manifest = _typed(inspection, data)
    reading.contributions += _context_files(inspection, data.get("contextFileName"))
    _fields(inspection, data)
    reading.settings = _settings(inspection, data.get("settings"))
    _servers(inspection, data.get("mcpServers"), reading)
    reading.contributions += _skills(inspection)
    reading.contributions += read_commands(inspection)
    reading.contributions += _hooks(inspection, reading)
    _unsupported_folders(inspection)
    return reading


def _manifest_problems(data: dict[str, Any]) -> list[str]:
    """What makes Gemini CLI skip the extension: only a missing ``name`` or ``version`` and
    a name outside its pattern (``loadExtensionConfig``, ``validateName``)."""
    name, version = data.get("name"), data.get("version")
    found = []
    if not isinstance(name, str) or not name:
        found.append('missing "name"' if not name else f"name is {type_name(name)}, not a string")
    elif not _NAME.match(name):
        found.append(f"invalid extension name {name!r}: only letters, numbers and dashes")
    if not version:
        found.append('missing "version"')
    return found


_TYPED: Final = (
    ("version", str),
    ("description", str),
    ("mcpServers", dict),
    ("settings", list),
    ("excludeTools", list),
    ("themes", list),
    ("plan", dict),
)


def _typed(inspection: Inspection, data: dict[str, Any]) -> dict[str, Any]:
    """The manifest without the fields of a type ExtensionConfig does not declare: Gemini
    CLI does not check them and loads the extension; each is reported and not used here."""
    kept = dict(data)
    for key, kind in _TYPED:
        if key in data and not isinstance(data[key], kind):
            use = "read as text" if key == "version" else "not used"
            expected = {str: "a string", dict: "an object", list: "an array"}[kind]
            inspection.add(codes.GEMINI_FIELD_IGNORED(
                f"{MANIFEST}: {key} is {type_name(data[key])}, not {expected}; {use}",
                severity=Severity.WARNING,
            ))  # fmt: skip
            kept[key] = str(data[key]) if key == "version" else None
    context = data.get("contextFileName")
    if context is not None and not isinstance(context, str | list):
        inspection.add(codes.GEMINI_FIELD_IGNORED(
            f"{MANIFEST}: contextFileName is {type_name(context)}, neither a string nor a "
            "list; the default GEMINI.md is read", severity=Severity.WARNING,
        ))  # fmt: skip
        kept["contextFileName"] = None
    return {key: value for key, value in kept.items() if value is not None}


def _fields(inspection: Inspection, data: dict[str, Any]) -> None:
    for key in data:
        if key not in _FIELDS:
            inspection.add(codes.GEMINI_FIELD_IGNORED(
                f"{MANIFEST}: {key!r} is not a field of Gemini CLI's ExtensionConfig; ignored"
            ))  # fmt: skip
    if data.get("themes"):
        inspection.add(codes.GEMINI_UNSUPPORTED(
            f"{MANIFEST}: themes ({len(data['themes'])}) colour Gemini CLI's terminal; "
            "a headless host draws none", contribution="themes",
        ))  # fmt: skip
    if data.get("excludeTools"):
        listed = ", ".join(str(t) for t in data["excludeTools"])
        inspection.add(codes.GEMINI_UNSUPPORTED(
            f"{MANIFEST}: excludeTools ({listed}) hides Gemini CLI's own tools from its "
            "model; the gateway has no such tools, so it is not applied",
            contribution="excludeTools",
        ))  # fmt: skip
    for key in ("plan", "migratedTo"):
        if key in data:
            inspection.add(codes.GEMINI_FIELD_IGNORED(
                f"{MANIFEST}: {key} steers Gemini CLI's own "
                f"{'planning' if key == 'plan' else 'updates'}; ignored"
            ))  # fmt: skip


def _context_files(inspection: Inspection, raw: object) -> list[Contribution]:
    """The context files that exist, checked as Gemini CLI 0.61's ``validateContextFilePath``
    does: an invalid one is dropped with a warning, a missing one quietly."""
    declared = raw is not None
    names: list[object] = [raw] if isinstance(raw, str) else list(raw) \
        if isinstance(raw, list) else [DEFAULT_CONTEXT]  # fmt: skip
    found = []
    # Gemini CLI hydrates the whole manifest before it checks the names: ${/} is a
    # separator, ${extensionPath} and ${workspacePath} make the name absolute (refused).
    variables = {"extensionPath": str(inspection.root), "workspacePath": "/", "/": "/",
                 "pathSeparator": "/"}  # fmt: skip
    for raw_name in names:
        name = hydrate(raw_name, variables) if isinstance(raw_name, str) else raw_name
        problem = _context_problem(name)
        rel = normalize_relative(name) if problem is None and isinstance(name, str) else None
        if problem is None and (rel is None or not inspection.inside(inspection.root / rel)):
            problem = "it escapes the extension directory"
        if problem is not None or rel is None:
            inspection.add(codes.GEMINI_CONTEXT_INVALID(
                f"{MANIFEST}: invalid contextFileName {raw_name!r}: {problem}; dropped"
            ))  # fmt: skip
            continue
        if not safe_is_file(inspection.root / rel):
            if declared:  # the default GEMINI.md is optional
                inspection.add(codes.GEMINI_CONTEXT_MISSING(
                    f"{MANIFEST}: context file {rel!r} does not exist; not loaded"
                ))  # fmt: skip
            continue
        if inspection.read_text(rel) is None:
            continue
        found.append(Contribution(
            kind="context_file", name=rel,
            description="Gemini CLI context file: instructions loaded into every session",
            detail={"path": rel},
        ))  # fmt: skip
    return found


def _context_problem(name: object) -> str | None:
    if not isinstance(name, str) or not name.strip():
        return "expected a non-empty string"
    if "\0" in name:
        return "null bytes are not allowed"
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "absolute paths are not allowed"
    if ".." in name or ".." in unquote(name):
        return 'relative parent directory references ("..") are not allowed'
    return None


def _settings(inspection: Inspection, raw: object) -> list[str]:
    names = []
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        ok = isinstance(item, dict) and all(
            isinstance(item.get(k), str) and item.get(k) for k in ("name", "envVar")
        ) and isinstance(item.get("sensitive", False), bool)  # fmt: skip
        if not ok or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", item["envVar"]):
            inspection.add(codes.GEMINI_FIELD_IGNORED(
                f"{MANIFEST}: settings[{index}] is not {{name, description, envVar, "
                "sensitive?}} with a valid variable name; ignored"
            ))  # fmt: skip
            continue
        names.append(item["envVar"])
    return names


def _server_problem(raw: object) -> str | None:
    if not isinstance(raw, dict):
        return f"is {type_name(raw)}, not an object"
    for key, kind in _SERVER_TYPES.items():
        if key in raw and not isinstance(raw[key], kind):
            return f"{key} is {type_name(raw[key])}"
    for key in ("args", "includeTools", "excludeTools"):
        if not all(isinstance(item, str) for item in raw.get(key, [])):
            return f"{key} holds something other than strings"
    for key in ("env", "headers"):
        if not all(isinstance(v, str) for v in raw.get(key, {}).values()):
            return f"{key} holds a value that is not a string"
    if not any(key in raw for key in ("httpUrl", "url", "tcp", "command")):
        return "missing httpUrl (for Streamable HTTP), url (for SSE), and command (for stdio)"
    return None


def _servers(inspection: Inspection, raw: object, reading: ExtensionReading) -> None:
    for name, server in (raw if isinstance(raw, dict) else {}).items():
        problem = _server_problem(server)
        if problem is not None:
            inspection.add(codes.GEMINI_SERVER_INVALID(
                f"{MANIFEST}: mcpServers.{name}: {problem}; skipped", contribution=name
            ))  # fmt: skip
            continue
        for key in ("trust", "oauth", "authProviderType"):
            if key in server:
                inspection.add(codes.GEMINI_UNSUPPORTED(
                    f"{MANIFEST}: mcpServers.{name}.{key}: "
                    + ("Gemini CLI ignores trust for extensions" if key == "trust"
                       else "Gemini CLI's own sign-in for remote servers") + "; not applied",
                    contribution=name,
                ))  # fmt: skip
        transport = _transport(server)
        if transport != "stdio":
            where = server.get("httpUrl") or server.get("url") or server.get("tcp")
            reading.remote[name] = transport
            reading.contributions.append(Contribution(
                kind="mcp_server", name=name, description=f"{transport} MCP server",
                detail={"transport": transport, "path": MANIFEST},
            ))  # fmt: skip
            inspection.add(codes.GEMINI_REMOTE_SERVER(
                f"{MANIFEST}: {transport} server {name!r} ({where}) is listed, not connected",
                contribution=name,
            ))  # fmt: skip
            continue
        spec = {
            key: server[key]
            for key in ("command", "args", "env", "cwd", "timeout", "includeTools", "excludeTools")
            if key in server
        }
        reading.stdio[name] = spec
        command = " ".join([server["command"], *server.get("args", [])])
        reading.contributions.append(Contribution(
            kind="mcp_server", name=name, description=f"stdio MCP server: {command}",
            detail={"transport": "stdio", "path": MANIFEST, **spec},
        ))  # fmt: skip


def _transport(server: dict[str, Any]) -> str:
    """Gemini CLI's order (core ``createTransport``): httpUrl, url (+type), tcp, command."""
    if "httpUrl" in server:
        return "streamable-http"
    if "url" in server:
        return "sse" if server.get("type") == "sse" else "streamable-http"
    return "websocket" if "tcp" in server else "stdio"


def _skills(inspection: Inspection) -> list[Contribution]:
    """``skills/SKILL.md`` and ``skills/*/SKILL.md`` (core ``loadSkillsFromDir``): a string
    ``name`` and ``description`` each; the name's ``:\\/<>*?"|`` become ``-``."""
    if not safe_is_dir(inspection.root / "skills"):
        return []
    files = ["skills/SKILL.md"] if safe_is_file(inspection.root / "skills/SKILL.md") else []
    files += [
        posixpath.join(rel, "SKILL.md")
        for rel, is_dir in inspection.walk("skills", recursive=False)
        if is_dir and safe_is_file(inspection.root / rel / "SKILL.md")
    ]
    found = []
    for skill_md in files:
        before = len(inspection.diagnostics)
        skill = skill_contribution(inspection, skill_md)
        if skill is None or len(inspection.diagnostics) > before or not skill.description:
            inspection.add(adapters_codes.SKILL_INVALID(
                f"{skill_md}: needs a name and a description in its front matter; skipped"
            ))  # fmt: skip
            continue
        skill.name = _SKILL_NAME_OUT.sub("-", skill.name)
        found.append(skill)
    return found


def _hooks(inspection: Inspection, reading: ExtensionReading) -> list[Contribution]:
    """``hooks/hooks.json``, checked with the plugin host's reader of Gemini CLI's hooks
    (what ``inspect`` reports is what will run); kept raw for the launch, which hydrates
    its variables."""
    rel = "hooks/hooks.json"
    if not safe_is_file(inspection.root / rel):
        return []
    data = inspection.read_json_object(rel)
    if data is None:
        return []
    runnable, problems = read_gemini_hooks(data)
    for problem in problems:
        inspection.add(adapters_codes.declared(problem.code)(problem.message, contribution="hooks"))
    if runnable:
        reading.hooks = data
    declared = data.get("hooks")
    reading.unsupported_hook_events = [
        str(event) for event in (declared if isinstance(declared, dict) else {})
        if event in GEMINI_UNSUPPORTED_EVENTS
    ]  # fmt: skip
    events = dict.fromkeys(hook.event for hook in runnable)
    return [
        Contribution(kind="hook", name=event, target=GEMINI_EVENT_OF[event], detail={"path": rel})
        for event in events
    ]


def _unsupported_folders(inspection: Inspection) -> None:
    for folder, suffix, what in (("agents", ".md", "sub-agents (Gemini CLI's agent loop)"),
                                 ("policies", ".toml", "policy rules (Gemini CLI's policy "
                                  "engine)")):  # fmt: skip
        if not safe_is_dir(inspection.root / folder):
            continue
        files = [rel for rel, is_dir in inspection.walk(folder, recursive=False)
                 if not is_dir and rel.endswith(suffix)]  # fmt: skip
        if files:
            inspection.add(codes.GEMINI_UNSUPPORTED(
                f"{folder}/: {len(files)} {what}; listed, not applied", contribution=folder
            ))  # fmt: skip
