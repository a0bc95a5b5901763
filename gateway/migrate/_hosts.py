"""The targets for two more hosts, both running the package through ``gateway serve --mcp``:

- ``gemini-extension``: ``gemini-extension.json`` (Gemini CLI's ``ExtensionConfig``: ``name``
  of a-z A-Z 0-9 -, ``version``, ``description``, one stdio ``mcpServers`` entry) and
  ``skills/`` (Gemini CLI reads ``skills/*/SKILL.md``);
- ``codex-plugin``: ``.codex-plugin/plugin.json`` (``name``, ``version``, ``description``,
  ``skills: "./skills/"``, ``mcpServers: "./.mcp.json"``), ``.mcp.json`` with one stdio server
  and ``skills/``.

Each item says how the host's model meets it: Gemini CLI names an MCP tool
``mcp_<server>_<tool>`` for its hooks and policies, Codex ``mcp__<server>__<tool>``; a Codex
skill is ``<plugin>:<skill>``.
"""

from __future__ import annotations

import re

from gateway.migrate._codes import MIGRATE_NAME_ADJUSTED
from gateway.migrate._files import copy_skills, write_json
from gateway.migrate._model import Migration
from gateway.migrate._targets import mcp_items, server_name

__all__ = ["to_codex_plugin", "to_gemini_extension"]


def _version(migration: Migration) -> str:
    return migration.package.entry.version or "0.0.0"


def _named(migration: Migration, name: str, rule: str) -> str:
    if name != migration.package.id:
        migration.note(MIGRATE_NAME_ADJUSTED, f"name {name!r} ({rule})", severity=None)
    return name


def to_gemini_extension(migration: Migration, gateway: list[str]) -> None:
    entry = migration.package.entry
    name = re.sub(r"[^a-zA-Z0-9-]+", "-", migration.package.id).strip("-") or "gateway"
    name = _named(migration, name, "Gemini CLI names: letters, digits, '-'")
    program, *args = migration.serve_command(gateway, "--mcp")
    manifest: dict[str, object] = {"name": name, "version": _version(migration)}
    if entry.description:
        manifest["description"] = entry.description
    manifest["mcpServers"] = {name: {"command": program, "args": args}}
    write_json(migration, "gemini-extension.json", manifest)
    mcp_items(migration, host=lambda kind, item: (
        f"the MCP tool mcp_{name}_{item} in Gemini CLI" if kind == "tool"
        else f"the MCP prompt /{item} in Gemini CLI"
    ))  # fmt: skip
    copy_skills(migration, ("skills",), strict_names=False, how="copied to skills/ (Gemini CLI)")
    migration.usage = (
        "Install the folder with `gemini extensions install <folder>` (or link it with "
        "`gemini extensions link`). Its MCP server is `gateway serve --mcp`, so `gateway` "
        "must be on Gemini CLI's PATH with this package installed."
    )


def to_codex_plugin(migration: Migration, gateway: list[str]) -> None:
    entry = migration.package.entry
    name = _named(migration, server_name(migration), "Codex plugin names: kebab-case")
    program, *args = migration.serve_command(gateway, "--mcp")
    manifest: dict[str, object] = {"name": name, "version": _version(migration)}
    if entry.description:
        manifest["description"] = entry.description
    manifest |= {"skills": "./skills/", "mcpServers": "./.mcp.json"}
    write_json(migration, (".codex-plugin", "plugin.json"), manifest)
    write_json(migration, ".mcp.json",
               {"mcpServers": {name: {"command": program, "args": args}}})  # fmt: skip
    mcp_items(migration, host=lambda kind, item: (
        f"the MCP tool mcp__{name}__{item} in Codex" if kind == "tool"
        else f"the MCP prompt {item} in Codex"
    ))  # fmt: skip
    copy_skills(migration, ("skills",), strict_names=False,
                how=f"copied to skills/ (Codex lists it as {name}:<skill>)")  # fmt: skip
    migration.usage = (
        "Add the folder to a Codex marketplace (`.agents/plugins/marketplace.json`, a local "
        "source `./<folder>`), then `codex plugin add "
        f"{name}@<marketplace>`. Its MCP server is `gateway serve --mcp`, so `gateway` must "
        "be on Codex's PATH with this package installed."
    )
