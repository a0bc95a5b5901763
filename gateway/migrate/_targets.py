"""The four targets. Each writes its files into ``migration.out`` and says, item by item,
what carried over and what did not (with a code): ``nimlet`` and ``mcp`` and
``agent-plugin`` run the package through ``gateway serve``; ``nanobot`` rewraps its files
for nanobot's own runtimes."""

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
    MIGRATE_TARGET_UNSUPPORTED,
)
from gateway.migrate._files import copy_package, copy_prompts, copy_skills, write_json
from gateway.migrate._model import Migration
from gateway.migrate._schemas import MCP_SCHEMA_ID, PLUGIN_SCHEMA_ID, schema_problems
from gateway.model import NIMLET_EVENTS, Contribution
from gateway.packages import load_adapters
from gateway.serve._mcp_content import MCP_TOOL_NAME

__all__ = ["TARGETS", "Writer"]

Writer = Callable[[Migration, list[str]], None]
"""(migration, the command that starts ``gateway``) → files written."""

_NIMLET_EVENTS = frozenset(NIMLET_EVENTS.names())
_NOT_PORTABLE = {
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
        reason = _NOT_PORTABLE.get(contribution.kind)
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


def _mcp_items(migration: Migration) -> None:
    how = "an MCP tool of `gateway serve --mcp`"
    observation = migration.observation
    for tool in observation.tools:
        if not MCP_TOOL_NAME.match(tool["name"]):
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"tool {tool['name']!r}: its name breaks MCP's tool-name rule; served as it is, "
                "but an MCP client may refuse it",
                tool["name"],
            )
        migration.carry("tool", tool["name"], how)
    for command in observation.commands:
        migration.carry("command", command["name"], "an MCP prompt (prompts/get runs it)")
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
            migration.carry("prompt", contribution.name, "an MCP prompt of the server")
        if _runs_in_gateway(migration, contribution):
            migration.carry("mcp_server", contribution.name, "its tools served by the server")
            continue
        reason = _NOT_PORTABLE.get(contribution.kind)
        if reason is not None:
            migration.note(
                MIGRATE_NOT_CARRIED, f"{contribution.kind} {contribution.name!r}: {reason}",
                contribution.name,
            )  # fmt: skip


def _server_name(migration: Migration) -> str:
    name = re.sub(r"[^a-z0-9.-]+", "-", migration.package.id.lower()).strip("-.")
    return re.sub(r"-{2,}", "-", name) or "gateway"


def to_mcp(migration: Migration, gateway: list[str]) -> None:
    command = migration.serve_command(gateway, "--mcp")
    name = _server_name(migration)
    write_json(
        migration, "mcp.json", {"mcpServers": {name: {"command": command[0], "args": command[1:]}}}
    )
    _mcp_items(migration)
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


def to_agent_plugin(migration: Migration, gateway: list[str]) -> None:
    package, entry = migration.package, migration.package.entry
    name = _server_name(migration)
    if name != package.id:
        migration.note(
            MIGRATE_NAME_ADJUSTED,
            f"plugin name {name!r} (Agent Plugins names: a-z, 0-9, '-', '.')",
            severity=None,
        )
    program, *args = migration.serve_command(gateway, "--mcp")
    if "/" in program:
        # Agent Plugins takes a bare name (found on PATH) or a path inside the plugin.
        migration.note(
            MIGRATE_NOT_CARRIED,
            f"the gateway command {program!r}: an Agent Plugins `command` is a bare program name "
            "or a path inside the plugin, so `gateway` is named and must be on PATH",
        )
        program = "gateway"
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
    _mcp_items(migration)
    copy_skills(migration, ("skills",), strict_names=True, how="copied to skills/ (Agent Skills)")
    migration.usage = (
        "Install the folder as an Agent Plugin in any client that reads Agent Plugins 1.0 "
        "(`plugin.json`, `skills/`, `mcp.json`). Its MCP server is `gateway serve --mcp`, "
        "so `gateway` must be on the client's PATH with this package installed."
    )


# --------------------------------------------------------------------------- nanobot

_NANOBOT_RUNTIME = {"pi": "pi", "openclaw": "openclaw", "nanobot": None}
_NANOBOT_NAME = re.compile(r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?")


def to_nanobot(migration: Migration, gateway: list[str]) -> None:
    entry = migration.package.entry
    if entry.ecosystem == "agent-plugins":
        migration.note(
            MIGRATE_TARGET_UNSUPPORTED,
            "an Agent Plugin needs no nanobot form: nanobot 0.3 reads Agent Plugins as they "
            "are (place the plugin under <workspace>/plugins/ and enable it there), or try "
            "--to nimlet or mcp",
        )
        return
    if entry.ecosystem not in _NANOBOT_RUNTIME:
        migration.note(
            MIGRATE_TARGET_UNSUPPORTED,
            f"a {entry.ecosystem} package has no nanobot form: nanobot runs python, pi and "
            "openclaw runtimes (try --to nimlet, mcp or agent-plugin)",
        )
        return
    copy_package(migration)
    if entry.ecosystem == "nanobot":
        migration.carry("manifest", "nanobot.extension.json", "already a nanobot package: copied")
        for c in entry.contributions:
            migration.carry(c.kind, c.name, "declared in its manifest")
    else:
        _write_nanobot_manifest(migration)
    written = load_adapters().inspect(migration.out)
    problems = [d.message for d in written.diagnostics if d.severity.value == "error"]
    if written.ecosystem != "nanobot" or problems:
        for problem in problems or ["the strict nanobot reader did not take it"]:
            migration.note(MIGRATE_OUTPUT_INVALID, f"nanobot.extension.json: {problem}")
    migration.files.append(migration.out / "nanobot.extension.json")
    migration.usage = (
        f"Install the folder into nanobot (`nanobot extensions install {migration.out} --kind "
        f"local`, then grant, trust and enable {entry.id}), or into the gateway "
        f"(`gateway install {migration.out}`), which runs nanobot packages the same way."
    )


def _write_nanobot_manifest(migration: Migration) -> None:
    entry, observation = migration.package.entry, migration.observation
    package_id = entry.id.lower().lstrip("@").replace("/", ".")
    package_id = re.sub(r"[^a-z0-9._-]+", "-", package_id).strip("._-") or "package"
    if package_id != entry.id:
        migration.note(MIGRATE_NAME_ADJUSTED, f"nanobot id {package_id!r} (lowercase ids)")
    contributions: list[dict[str, object]] = []
    # What nanobot does with each kind of a Pi / OpenClaw package (its compatibility matrix).
    how = {
        "tool": "declared; runs in nanobot's Node sidecar, projected as a native tool",
        "command": "declared; registered in nanobot's command router",
        "hook": "declared; nanobot delivers the event to observe only (it cannot change it)",
        "skill": "declared; nanobot keeps it as catalog metadata, it installs no skill",
    }

    def add(kind: str, name: str, description: str) -> None:
        if not _NANOBOT_NAME.fullmatch(name):
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"{kind} {name!r}: nanobot names are lowercase (a-z, 0-9, '.', '_', '-'); "
                "nanobot would refuse the manifest, so it is not declared (and its runtime's "
                "registration of it is refused)",
                name,
            )
            return
        item: dict[str, object] = {"kind": kind, "name": name}
        if description:
            item["description"] = description
        contributions.append(item)
        migration.carry(kind, name, how[kind])

    for tool in observation.tools:
        add("tool", tool["name"], tool.get("description", ""))
    for command in observation.commands:
        add("command", command["name"], command.get("description", ""))
    for event in dict.fromkeys([*observation.events, *observation.named_hooks]):
        add("hook", event, f"{event} handler")
    for contribution in entry.contributions:
        if contribution.kind == "skill":
            add("skill", contribution.name, contribution.description)
        elif contribution.kind in _NOT_PORTABLE or contribution.kind == "prompt":
            reason = _NOT_PORTABLE.get(
                contribution.kind, "nanobot has no prompt templates (its commands are code)"
            )
            migration.note(
                MIGRATE_NOT_CARRIED, f"{contribution.kind} {contribution.name!r}: {reason}",
                contribution.name,
            )  # fmt: skip
    if not observation.complete:
        migration.note(
            MIGRATE_CONTRIBUTIONS_UNKNOWN,
            "nanobot refuses what a manifest does not declare, and the package's tools, "
            "commands and hooks exist only when it runs: nothing ran, so none are declared "
            "(run with --load)",
        )
    manifest: dict[str, object] = {
        "id": package_id,
        "name": entry.name or package_id,
        "version": entry.version or "0.0.0",
        "apiVersion": 1,
        "runtime": _NANOBOT_RUNTIME[entry.ecosystem],
        "entries": list(entry.entries),
    }
    if entry.description:
        manifest["description"] = entry.description
    license_ = entry.metadata.get("license")
    if isinstance(license_, str) and license_:
        manifest["license"] = license_
    manifest["contributions"] = contributions
    write_json(migration, "nanobot.extension.json", manifest)
    migration.files.pop()  # appended once by the caller, after validation


TARGETS: dict[str, Writer] = {
    "nimlet": to_nimlet,
    "nanobot": to_nanobot,
    "mcp": to_mcp,
    "agent-plugin": to_agent_plugin,
}
"""Targets whose output runs the package through ``gateway serve`` need it installed."""
SERVED = frozenset({"nimlet", "mcp", "agent-plugin"})
