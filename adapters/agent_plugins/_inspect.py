"""Reading an Agent Plugin (Agent Plugins 1.0.0) into a catalog entry: the closed
``plugin.json``, the ``skills/<name>/SKILL.md`` folders and the ``mcp.json`` servers,
strictly, with the JSON Schemas ``gateway migrate`` writes by (``gateway.base.agent_plugins``).
Reads files only.

A bad ``plugin.json`` refuses the plugin (as every Agent Plugins client does); a bad
``mcp.json`` refuses its servers; a bad server entry refuses that server, naming it.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from adapters import _codes as adapters_codes
from adapters._files import Inspection, safe_is_dir, safe_is_file
from adapters._markdown import skill_contribution
from adapters.agent_plugins import _codes as codes
from adapters.plugin_host import (
    remote_contribution,
    remote_permissions,
    remote_secrets,
    url_problem,
)
from gateway.base import Severity, counted
from gateway.base.agent_plugins import (
    MCP_SCHEMA_ID,
    PLUGIN_SCHEMA_ID,
    SCHEMA_HOST,
    schema,
    variant_problems,
)
from gateway.base.agent_plugins import schema_problems as problems_of
from gateway.model import CatalogEntry, Contribution

__all__ = [
    "ECOSYSTEM",
    "MANIFEST",
    "MCP_FILE",
    "PluginReading",
    "inspect_agent_plugin",
    "is_agent_plugin",
    "read_plugin",
]

ECOSYSTEM = "agent-plugins"
RUNTIME = "plugin-host"

MANIFEST = "plugin.json"
MCP_FILE = "mcp.json"
PACKAGE_RUNNERS = frozenset({"npx", "uvx", "pipx", "bunx", "pnpx", "dlx", "deno"})
"""Commands that fetch the server's package when they start (network)."""


@dataclass(slots=True)
class PluginReading:
    name: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    skills: list[Contribution] = field(default_factory=list)
    stdio: dict[str, dict[str, Any]] = field(default_factory=dict)
    remote: dict[str, dict[str, Any]] = field(default_factory=dict)
    valid: bool = False


def _schema_id(data: object) -> object:
    return data.get("$schema") if isinstance(data, dict) else None


def is_agent_plugin(inspection: Inspection) -> bool:
    """A ``plugin.json`` at the root naming an agent-plugins.org schema (any version: one
    this reader does not know is then said so, not passed to another adapter)."""
    if not safe_is_file(inspection.root / MANIFEST):
        return False
    data = inspection.read_json_object(MANIFEST, required=False)
    schema = _schema_id(data)
    return isinstance(schema, str) and schema.startswith(SCHEMA_HOST)


def read_plugin(inspection: Inspection) -> PluginReading:
    reading = PluginReading()
    data = inspection.read_json_object(MANIFEST)
    if data is None:
        return reading
    reading.manifest = data
    if isinstance(data.get("name"), str):
        reading.name = data["name"]
    schema = data.get("$schema")
    if schema != PLUGIN_SCHEMA_ID:
        inspection.add(codes.AGENT_PLUGINS_SCHEMA_UNKNOWN(
            f"{MANIFEST}: {_schema_said(schema, PLUGIN_SCHEMA_ID)} (Agent Plugins 1.0.0, "
            "the one version read here); the plugin is not read"
        ))  # fmt: skip
        return reading
    problems = problems_of("plugin", _known_fields(inspection, data))
    for problem in problems:
        inspection.add(codes.AGENT_PLUGINS_MANIFEST_INVALID(f"{MANIFEST}: {problem}"))
    if problems:
        return reading
    reading.valid = True
    reading.skills = _skills(inspection)
    if safe_is_file(inspection.root / MCP_FILE):
        _servers(inspection, reading)
    return reading


_FIELDS = frozenset(schema("plugin")["properties"])


def _known_fields(inspection: Inspection, data: dict[str, Any]) -> dict[str, Any]:
    """The manifest without what §5.2 and §8.1 say to report and ignore: unknown top-level
    fields and an ``extensions`` that is not an object."""
    kept = {}
    for key, value in data.items():
        if key not in _FIELDS:
            inspection.add(codes.AGENT_PLUGINS_FIELD_IGNORED(
                f"{MANIFEST}: unknown field {key!r} (not in Agent Plugins 1.0.0); ignored"
            ))  # fmt: skip
        elif key == "extensions" and not isinstance(value, dict):
            inspection.add(codes.AGENT_PLUGINS_FIELD_IGNORED(
                f"{MANIFEST}: extensions is not an object; ignored"
            ))  # fmt: skip
        else:
            kept[key] = value
    return kept


def _skills(inspection: Inspection) -> list[Contribution]:
    found: list[Contribution] = []
    if not safe_is_dir(inspection.root / "skills"):
        return found
    for rel, is_dir in sorted(inspection.walk("skills", recursive=False)):
        skill_md = posixpath.join(rel, "SKILL.md")
        if not is_dir or not safe_is_file(inspection.root / skill_md):
            continue
        before = len(inspection.diagnostics)
        text = inspection.read_text(skill_md) or ""
        if not text.lstrip("\ufeff").startswith("---"):
            inspection.add(
                adapters_codes.SKILL_INVALID(f"{skill_md}: no --- frontmatter (name, description)")
            )
        contribution = skill_contribution(inspection, skill_md)
        folder = posixpath.basename(rel)
        if contribution is not None:
            problem = _skill_identity_problem(contribution, folder)
            if problem is not None:
                inspection.add(adapters_codes.SKILL_INVALID(f"{skill_md}: {problem}"))
        if contribution is None or len(inspection.diagnostics) > before:
            # §7.1: a skill that is not a valid Agent Skill is skipped, the others load.
            inspection.add(adapters_codes.SKILL_INVALID(f"{skill_md}: skipped (see above)"))
            continue
        found.append(contribution)
    return found


_SKILL_NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")


def _skill_identity_problem(skill: Contribution, folder: str) -> str | None:
    """The Agent Skills identity rules (as nanobot 0.3 checks them): ``name`` is the folder's
    name, 1-64 of ``a-z 0-9 -`` without ``--``, alphanumeric at both ends; a description of
    1-1024 characters."""
    if skill.name != folder:
        return f"name {skill.name!r} is not its folder's name {folder!r}"
    if len(folder) > 64 or not _SKILL_NAME.match(folder):
        return f"name {folder!r} is not 1-64 of a-z 0-9 - (alphanumeric at both ends, no --)"
    if not 1 <= len(skill.description.strip()) <= 1024:
        return "the description is empty or over 1024 characters"
    return None


def _servers(inspection: Inspection, reading: PluginReading) -> None:
    data = inspection.read_json_object(MCP_FILE)
    if data is None:
        return
    schema = data.get("$schema")
    if schema != MCP_SCHEMA_ID:
        code = (
            codes.AGENT_PLUGINS_SCHEMA_UNKNOWN
            if isinstance(schema, str) and schema.startswith(SCHEMA_HOST)
            else codes.AGENT_PLUGINS_MCP_INVALID
        )
        inspection.add(code(
            f"{MCP_FILE}: {_schema_said(schema, MCP_SCHEMA_ID)}; no server is read",
            severity=Severity.WARNING,
        ))  # fmt: skip
        return
    servers = data.get("mcpServers")
    extra = sorted(set(data) - {"$schema", "mcpServers"})
    if not isinstance(servers, dict) or extra:
        why = "mcpServers is not an object"
        if extra:
            why = f"{counted(len(extra), 'unknown field')}: {', '.join(extra)}"
        inspection.add(codes.AGENT_PLUGINS_MCP_INVALID(f"{MCP_FILE}: {why}; no server is read"))
        return
    for name, raw in servers.items():
        problem = _server_problem(inspection, name, raw)
        if problem is not None:
            inspection.add(codes.AGENT_PLUGINS_SERVER_INVALID(
                f"{MCP_FILE}: server {name!r}: {problem}; skipped", contribution=name
            ))  # fmt: skip
        elif raw["type"] == "stdio":
            reading.stdio[name] = {
                "command": raw["command"],
                "args": list(raw.get("args", [])),
                "env": dict(raw.get("env", {})),
                "cwd": raw.get("cwd"),
            }
        else:
            reading.remote[name] = {
                "transport": raw["type"],
                "url": raw["url"],
                "headers": dict(raw.get("headers") or {}),
            }


def _server_problem(inspection: Inspection, name: str, raw: object) -> str | None:
    if not name or len(name) > 128 or any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "the name is empty, over 128 characters or has control characters"
    problems = problems_of("mcp", {"$schema": MCP_SCHEMA_ID, "mcpServers": {name: raw}})
    if problems:
        return _plain(problems, raw)
    assert isinstance(raw, dict)
    if raw["type"] != "stdio":
        return url_problem(raw["url"], raw.get("headers") or {})
    command: str = raw["command"]
    label = f"{MCP_FILE} server {name!r} command"
    if command.startswith("./"):
        rel = inspection.resolve(command, label=label)
        if rel is None or not safe_is_file(inspection.root / rel):
            return f"command {command!r} is not a file inside the plugin"
    cwd = raw.get("cwd")
    return _cwd_problem(inspection, name, cwd) if isinstance(cwd, str) else None


def _cwd_problem(inspection: Inspection, name: str, cwd: str) -> str | None:
    """§7.2.1: ``./`` or ``${PLUGIN_ROOT}``-rooted stays inside the plugin (an existing
    folder); ``${PLUGIN_DATA}``-rooted never climbs out with ``..``."""
    if ".." in cwd.split("/"):
        return f"cwd {cwd!r} climbs out of its base with '..'"
    root_rel = cwd.removeprefix("${PLUGIN_ROOT}").strip("/")
    if cwd.startswith("./"):
        relative = cwd
    elif cwd.startswith("${PLUGIN_ROOT}") and root_rel:
        relative = f"./{root_rel}"
    else:
        return None
    rel = inspection.resolve(relative, label=f"{MCP_FILE} server {name!r} cwd")
    if rel is None or not safe_is_dir(inspection.root / rel):
        return f"cwd {cwd!r} is not a folder inside the plugin"
    return None


def _plain(problems: list[str], raw: object) -> str:
    """The schema's ``oneOf`` says little; name the variant's own rule where one fails."""
    if isinstance(raw, dict) and raw.get("type") in ("stdio", "streamable-http", "sse"):
        found = variant_problems("stdio" if raw["type"] == "stdio" else "remote", raw)
        if found:
            return "; ".join(found)
    if isinstance(raw, dict) and "type" not in raw:
        # Claude Code reads a server without one as stdio; the 1.0.0 schema refuses it.
        return 'no "type": the specification asks for one of stdio, streamable-http, sse'
    return "; ".join(p.partition(": ")[2] or p for p in problems)


def remote_host(url: str) -> str:
    return urlsplit(url).hostname or "?"


def inspect_agent_plugin(root: Path) -> CatalogEntry:
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    reading = read_plugin(inspection)
    if reading.name:
        entry.id = entry.name = reading.name
    if reading.valid:
        _fill(inspection, entry, reading)
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _fill(inspection: Inspection, entry: CatalogEntry, reading: PluginReading) -> None:
    manifest = reading.manifest
    entry.version = str(manifest.get("version", ""))
    entry.description = str(manifest.get("description", ""))
    entry.contributions = list(reading.skills)
    for name, server in reading.stdio.items():
        command = " ".join([server["command"], *server["args"]])
        entry.contributions.append(Contribution(
            kind="mcp_server", name=name, description=f"stdio MCP server: {command}",
            detail={"transport": "stdio", "path": MCP_FILE, **server},
        ))  # fmt: skip
        if server["command"] in PACKAGE_RUNNERS:
            inspection.add(codes.AGENT_PLUGINS_SERVER_NEEDS_NETWORK(
                f"MCP server {name!r} starts with {server['command']!r}, which fetches "
                "packages from a registry; its sandbox denies network until granted",
                contribution=name, hint=f"gateway permissions {entry.id} network",
            ))  # fmt: skip
    for name, remote in reading.remote.items():
        entry.contributions.append(remote_contribution(name, remote, MCP_FILE))
    entry.permissions = remote_permissions(reading.remote)
    entry.secrets = remote_secrets(reading.remote)
    entry.runtime = RUNTIME if reading.stdio or reading.remote else "declarative"
    entry.metadata = {
        "stdio_servers": reading.stdio,
        "remote_servers": reading.remote,
        "homepage": manifest.get("homepage", ""),
        "license": manifest.get("license", ""),
        "repository": manifest.get("repository", ""),
    }


def _schema_said(schema: object, wanted: str) -> str:
    """What is wrong with a file's ``$schema``, in words: missing, or another value."""
    if schema is None:
        return f"has no $schema (it must be {wanted})"
    return f"$schema {schema!r} is not {wanted}"
