"""The targets that run the package through ``gateway serve``: ``nimlet``, ``mcp`` and
``agent-plugin`` (whose writer the ``nanobot`` target shares, ``_nanobot``). Each writes its
files into ``migration.out`` and says, item by item, what carried over and what did not
(with a code)."""

from __future__ import annotations

import re
from collections.abc import Callable

from gateway.base import encode_name, name_problem
from gateway.migrate._codes import (
    MIGRATE_CONTRIBUTIONS_UNKNOWN,
    MIGRATE_NAME_ADJUSTED,
    MIGRATE_NAME_RENAMED,
    MIGRATE_NOT_CARRIED,
    MIGRATE_OUTPUT_INVALID,
)
from gateway.migrate._files import copy_prompts, copy_skills, write_json
from gateway.migrate._model import Migration
from gateway.migrate._schemas import MCP_SCHEMA_ID, PLUGIN_SCHEMA_ID, schema_problems
from gateway.model import NIMLET_EVENTS, Contribution
from gateway.serve import MCP_TOOL_NAME

__all__ = ["NOT_PORTABLE", "HostName", "Writer", "mcp_items", "server_name",
           "to_agent_plugin", "to_mcp", "to_nimlet", "write_agent_plugin"]  # fmt: skip

Writer = Callable[[Migration, list[str]], None]
"""(migration, the command that starts ``gateway``) → files written."""

_NIMLET_EVENTS = frozenset(NIMLET_EVENTS.names())
NOT_PORTABLE = {
    "theme": "a Pi theme styles Pi's terminal; no other host draws it",
    "channel": "a channel is a chat transport the host must own",
    "llm_provider": "a model provider is the host's, not an extension's",
    "provider": "a model provider is the host's, not an extension's",
    "transcription_provider": "a provider contract only its own host fills",
    "image_generation_provider": "a provider contract only its own host fills",
    "web_search_provider": "a provider contract only its own host fills",
    "webui": "a web UI contribution only its own host shows",
    "cli_command": "an OpenClaw root CLI command belongs to OpenClaw's CLI",
    "contract": "an OpenClaw contract kept as metadata",
    "mcp_server": "an MCP server declaration the package's own host starts",
}


def _runs_in_gateway(migration: Migration, contribution: Contribution) -> bool:
    """A stdio MCP server of a package the gateway runs (an Agent Plugin's, in its plugin
    host): its tools, resources and prompts are the served package's, so it carries over."""
    return (
        contribution.kind == "mcp_server"
        and contribution.detail.get("transport") == "stdio"
        and migration.package.entry.runtime != "declarative"
    )


def _served_items(migration: Migration, how: str, *, events: str | None) -> None:
    """The tools, commands and hooks the served package registers, and what is unknown."""
    observation = migration.observation
    for tool in observation.tools:
        migration.carry("tool", tool["name"], how)
    for command in observation.commands:
        migration.carry("command", command["name"], how)
    for event in observation.events:
        if events is None or event in _NIMLET_EVENTS:
            migration.carry("hook", event, how if events is None else events)
        else:
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"hook {event!r}: the target sends only nimlet's nine events, so it never fires",
                event,
            )
    for hook in observation.named_hooks:
        migration.carry("hook", hook, f"{how}; its events as the host sends them")
    if not observation.complete:
        migration.note(
            MIGRATE_CONTRIBUTIONS_UNKNOWN,
            "tools, commands and hooks are registered when the package runs, nothing ran and "
            "no earlier start was recorded: the output serves them all the same, but this "
            "list cannot name them (run with --load to see them)",
        )
    for contribution in migration.package.entry.contributions:
        if _runs_in_gateway(migration, contribution):
            migration.carry("mcp_server", contribution.name, f"{how}: its tools and prompts")
            continue
        reason = NOT_PORTABLE.get(contribution.kind)
        if reason is not None:
            migration.note(
                MIGRATE_NOT_CARRIED, f"{contribution.kind} {contribution.name!r}: {reason}",
                contribution.name,
            )  # fmt: skip


# --------------------------------------------------------------------------- nimlet


def to_nimlet(migration: Migration, gateway: list[str]) -> None:
    package = migration.package
    name = package.entry.name if re.fullmatch(r"[\w.-]+", package.entry.name) else package.id
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "package"
    folder = encode_name(slug, fallback="package")  # ".." passes the pattern above
    if folder != slug:
        migration.note(
            MIGRATE_NAME_RENAMED,
            f"the extension's folder is .nimlet/extensions/{folder}, not {slug!r}: as a folder "
            f"name, {name_problem(slug)}",
        )
    command = migration.serve_command(gateway, "--nimlet")
    write_json(
        migration,
        (".nimlet", "extensions", folder, "extension.json"),
        # The served gateway starts its runtimes before it registers: allow for a cold start.
        {"name": name, "command": command, "response_timeout_seconds": 60},
    )
    _served_items(migration, "served by `gateway serve --nimlet`", events="sent by the host")
    skills, prompts = (".agents", "skills"), (".agents", "prompts")
    copy_skills(migration, skills, strict_names=False, how="copied to .agents/skills")
    if package.entry.ecosystem != "nimlet":
        # A nimlet package's own templates are commands of the served gateway already.
        copy_prompts(migration, prompts, how="copied to .agents/prompts")
    migration.usage = (
        "Copy the folder's contents into a workspace (or your home, for every workspace):\n\n"
        f"    cp -r {migration.out}/. /path/to/workspace/\n\n"
        f"nimlet then starts `.nimlet/extensions/{folder}` (a project root: trust the "
        "project), and finds the skills and prompt templates under `.agents/`. The extension "
        "speaks plain nimlet v1, current generation (`--protocol older` for a host of the "
        "older document)."
    )


# --------------------------------------------------------------------------- mcp


HostName = Callable[[str, str], str]
"""(``tool`` or ``prompt``, its MCP name) → how a client's model meets it."""

_MCP_HOW = {"tool": "an MCP tool of `gateway serve --mcp`",
            "command": "an MCP prompt (prompts/get runs it)",
            "prompt": "an MCP prompt of the server"}  # fmt: skip


def mcp_items(migration: Migration, *, host: HostName | None = None) -> None:
    """What an MCP client gets of the served package; ``host`` names how a client's model
    meets a tool or prompt (default: as MCP names it)."""

    def how(kind: str, name: str) -> str:
        return (
            _MCP_HOW[kind] if host is None else host("tool" if kind == "tool" else "prompt", name)
        )

    observation = migration.observation
    for tool in observation.tools:
        if not MCP_TOOL_NAME.match(tool["name"]):
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"tool {tool['name']!r}: its name breaks MCP's tool-name rule; served as it is, "
                "but an MCP client may refuse it",
                tool["name"],
            )
        migration.carry("tool", tool["name"], how("tool", tool["name"]))
    for command in observation.commands:
        migration.carry("command", command["name"], how("command", command["name"]))
    for event in observation.events:
        if event in ("tool_call", "tool_result"):
            migration.carry("hook", event, "applies to the server's own tool calls")
        else:
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"hook {event!r}: an MCP client tells a server nothing of its turns, sessions, "
                "compaction or model requests, so it fires only where the server itself "
                "starts and ends its session",
                event,
            )
    for hook in observation.named_hooks:
        migration.carry("hook", hook, "acts on the server's own tool calls (as its events allow)")
    if not observation.complete:
        migration.note(
            MIGRATE_CONTRIBUTIONS_UNKNOWN,
            "tools, commands and hooks are registered when the package runs; nothing ran and no "
            "earlier start was recorded, so this list cannot name them (run with --load)",
        )
    for contribution in migration.package.entry.contributions:
        if contribution.kind == "prompt":
            migration.carry("prompt", contribution.name, how("prompt", contribution.name))
        if _runs_in_gateway(migration, contribution):
            migration.carry("mcp_server", contribution.name, "its tools served by the server")
            continue
        reason = NOT_PORTABLE.get(contribution.kind)
        if reason is not None:
            migration.note(
                MIGRATE_NOT_CARRIED, f"{contribution.kind} {contribution.name!r}: {reason}",
                contribution.name,
            )  # fmt: skip


def server_name(migration: Migration) -> str:
    """The package id as an Agent Plugins (and nanobot) name: a-z, 0-9, single '-' and '.',
    at most 64 characters."""
    name = re.sub(r"[^a-z0-9.-]+", "-", migration.package.id.lower())
    name = re.sub(r"\.{2,}", ".", re.sub(r"-{2,}", "-", name))
    return name[:64].strip("-.") or "gateway"


def to_mcp(migration: Migration, gateway: list[str]) -> None:
    command = migration.serve_command(gateway, "--mcp")
    name = server_name(migration)
    write_json(
        migration, "mcp.json", {"mcpServers": {name: {"command": command[0], "args": command[1:]}}}
    )
    mcp_items(migration)
    for contribution in migration.package.entry.contributions:
        if contribution.kind == "skill":
            migration.carry(
                "skill", contribution.name, f"an MCP resource skill://{contribution.name}/SKILL.md"
            )
    migration.usage = (
        "Merge `mcp.json`'s `mcpServers` entry into your MCP client's configuration (Claude "
        "Desktop: `claude_desktop_config.json`; most clients read the same object). The "
        "server runs the package through this gateway, with its gates."
    )


# --------------------------------------------------------------------------- agent-plugin


def write_agent_plugin(
    migration: Migration, gateway: list[str], *, host: Callable[[str, str, str], str] | None
) -> str:
    """``plugin.json``, ``mcp.json`` (Agent Plugins 1.0, checked against its schemas) and
    ``skills/``; returns the plugin's (and its one MCP server's) name."""
    package, entry = migration.package, migration.package.entry
    name = server_name(migration)
    if name != package.id:
        migration.note(
            MIGRATE_NAME_ADJUSTED,
            f"plugin name {name!r} (Agent Plugins names: a-z, 0-9, '-', '.')",
            severity=None,
        )
    if "/" in gateway[0]:
        # Agent Plugins takes a bare name (found on PATH) or a path inside the plugin. The
        # whole command is replaced: `python -m gateway` keeps no `-m gateway` behind.
        migration.note(
            MIGRATE_NOT_CARRIED,
            f"the gateway command {' '.join(gateway)!r}: an Agent Plugins `command` is a bare "
            "program name or a path inside the plugin, so `gateway` is named and must be on PATH",
        )
        gateway = ["gateway"]
    program, *args = migration.serve_command(gateway, "--mcp")
    manifest: dict[str, object] = {"$schema": PLUGIN_SCHEMA_ID, "name": name}
    if entry.version:
        manifest["version"] = entry.version
    if entry.description:
        manifest["description"] = entry.description
    license_ = entry.metadata.get("license")
    if isinstance(license_, str) and license_:
        manifest["license"] = license_
    manifest["keywords"] = ["extension-gateway", entry.ecosystem]
    mcp = {"$schema": MCP_SCHEMA_ID,
           "mcpServers": {name: {"type": "stdio", "command": program, "args": args}}}  # fmt: skip
    for document, schema, data in (("plugin.json", "plugin", manifest), ("mcp.json", "mcp", mcp)):
        for problem in schema_problems(schema, data):
            migration.note(MIGRATE_OUTPUT_INVALID, f"{document}: {problem}")
        write_json(migration, document, data)
    mcp_items(migration, host=None if host is None else lambda kind, item: host(name, kind, item))
    copy_skills(migration, ("skills",), strict_names=True, how="copied to skills/ (Agent Skills)")
    return name


def to_agent_plugin(migration: Migration, gateway: list[str]) -> None:
    write_agent_plugin(migration, gateway, host=None)
    migration.usage = (
        "Install the folder as an Agent Plugin in any client that reads Agent Plugins 1.0 "
        "(`plugin.json`, `skills/`, `mcp.json`). Its MCP server is `gateway serve --mcp`, "
        "so `gateway` must be on the client's PATH with this package installed."
    )
