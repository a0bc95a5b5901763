"""Reading a Claude Code plugin into a catalog entry: its manifest, slash commands,
skills, subagents (listed, unsupported), hooks and MCP servers. Runs nothing."""

from __future__ import annotations

import posixpath
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters._files import Inspection, safe_is_dir, safe_is_file
from adapters._markdown import skill_contribution, skill_files
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._commands import command_issues
from adapters.claude_plugins._components import hook_needs, read_hook_sources, read_mcp_servers
from adapters.claude_plugins._dependencies import as_dependencies, to_metadata
from adapters.claude_plugins._manifest import MANIFEST, read_manifest
from adapters.claude_plugins._remote import url_option_problem
from adapters.claude_plugins._shell_lines import shell_line_issues, shell_lines
from adapters.claude_plugins._user_config import REFERENCE, config_schema, read_user_config
from adapters.plugin_host import (
    EVENT_OF,
    remote_contribution,
    remote_permissions,
    remote_secrets,
)
from gateway.model import CatalogEntry, Contribution, parse_front_matter

__all__ = ["ECOSYSTEM", "inspect_plugin", "is_claude_plugin"]

ECOSYSTEM: Final = "claude"


def is_claude_plugin(root: Any) -> bool:
    return safe_is_file(root / MANIFEST)


def inspect_plugin(root: Any) -> CatalogEntry:
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    manifest = read_manifest(inspection, entry.name)
    entry.id = entry.name = manifest.name
    entry.version, entry.description = manifest.version, manifest.description
    for rel, name in _markdown_files(inspection, "commands", manifest.paths.get("commands", [])):
        _command(inspection, entry, rel, name)
    for rel in _skills(inspection, manifest.paths.get("skills", [])):
        skill = skill_contribution(inspection, rel)
        if skill is not None:
            entry.contributions.append(skill)
            _skill_lines(inspection, entry, rel, skill)
    agents = [
        name for _, name in _markdown_files(inspection, "agents", manifest.paths.get("agents", []))
    ]
    if agents:
        inspection.add(
            codes.CLAUDE_COMPONENT_UNSUPPORTED(
                f"agents: subagents {', '.join(agents)} are listed, never run: the gateway "
                "runs no subagents"
            )
        )
    hooks, skipped_events = read_hook_sources(inspection, manifest.hooks)
    servers, remote = read_mcp_servers(inspection, manifest.mcp)
    for event in (hooks or {}).get("hooks", {}):
        if event in EVENT_OF:
            entry.contributions.append(
                Contribution(kind="hook", name=event, target=EVENT_OF[event])
            )
    for name in servers:
        entry.contributions.append(Contribution(kind="mcp_server", name=name))
    options = read_user_config(inspection, manifest.user_config)
    remote = _remote_with_options(inspection, remote, options)
    for name, server in remote.items():
        entry.contributions.append(remote_contribution(name, server, ".mcp.json"))
    hook_grants, hook_secrets = hook_needs(inspection, hooks, entry.id, [*servers, *remote])
    entry.permissions = remote_permissions(remote)
    named = {permission.name for permission in entry.permissions}
    entry.permissions += [p for p in hook_grants if p.name not in named]
    entry.dependencies = as_dependencies(manifest.dependencies)
    # Options: sensitive ones are secrets (`gateway secret`), the others settings (`gateway
    # config`, typed by the options' schema; no other key is one of its settings).
    sensitive = [key for key, option in options.items() if option["sensitive"]]
    declared = remote_secrets(remote)
    declared += [name for name in hook_secrets if name not in declared]
    entry.secrets = [*declared, *(key for key in sensitive if key not in declared)]
    entry.config_keys = [key for key in options if key not in sensitive]
    entry.config_closed = bool(options)
    shell_commands = [c.name for c in entry.contributions if c.detail.get("shell_lines")]
    entry.metadata = {
        "license": manifest.license,
        "homepage": manifest.homepage,
        "agents": agents,
        "hooks": hooks,
        "hook_secrets": hook_secrets,
        "unsupported_hook_events": skipped_events,
        "mcp_servers": servers,
        "remote_servers": remote,
        "shell_commands": shell_commands,
        "user_config": options,
        "dependencies": to_metadata(manifest.dependencies),
    }
    if entry.config_keys:
        entry.metadata["config_schema"] = config_schema(options)
    # A command with `!` lines is the plugin host's: it runs them in the plugin's sandbox.
    runs = hooks or servers or remote or shell_commands
    entry.runtime = "python-sidecar" if runs else "declarative"
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _skill_lines(
    inspection: Inspection, entry: CatalogEntry, rel: str, skill: Contribution
) -> None:
    """A skill with ``!`` lines is also the slash command ``/NAME`` (Claude Code runs them
    when the skill is invoked), served by the plugin host as a command with such lines is;
    a command of that name keeps it."""
    text = inspection.read_text(rel)
    front = parse_front_matter(text) if text is not None else None
    if front is None or not shell_lines(front.body):
        return
    name = skill.name
    if any(c.kind == "prompt" and c.name == name for c in entry.contributions):
        inspection.add(codes.SKILL_SHELL_LINES(
            f"{rel}: skill {name!r} has `!` lines, and a command of the same name keeps "
            f"`/{name}`: the skill's lines never run here",
            contribution=name,
        ))  # fmt: skip
        return
    shell_line_issues(inspection, rel, front.data, front.body)
    inspection.add(codes.SKILL_SHELL_LINES(
        f"{rel}: skill {name!r} has `!` lines: `/{name}` renders it, running the lines its "
        "allowed-tools allows in the plugin's sandbox; its file, read as a skill, holds them "
        "as text",
        contribution=name,
    ))  # fmt: skip
    detail = {"path": rel, "shell_lines": True, "skill": True}
    entry.contributions.append(
        Contribution(kind="prompt", name=name, description=skill.description, detail=detail)
    )


def _remote_with_options(
    inspection: Inspection, remote: dict[str, dict[str, Any]], options: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """The remote servers whose headers name only declared options and whose url only
    declared non-sensitive ones in its path or query (``${user_config.KEY}``, filled when
    the host starts); another is listed, not connected."""
    kept = {}
    for name, server in remote.items():
        wrong = url_option_problem(str(server["url"]), options)
        if wrong is not None:
            inspection.add(codes.REMOTE_URL_USER_CONFIG(
                f".mcp.json: server {name!r}: its url {wrong}; listed, not connected"
            ))  # fmt: skip
            continue
        named = {m for v in server.get("headers", {}).values() for m in REFERENCE.findall(v)}
        unknown = sorted(named - set(options))
        if unknown:
            inspection.add(
                codes.REMOTE_HEADER_USER_CONFIG(
                    f".mcp.json: server {name!r}: its headers name "
                    f"{', '.join('${user_config.' + key + '}' for key in unknown)}, not "
                    "declared in userConfig; listed, not connected"
                )
            )
            continue
        kept[name] = server
    return kept


def _command(inspection: Inspection, entry: CatalogEntry, rel: str, name: str) -> None:
    """A slash command named by its front matter's ``name``, else by its path below its
    folder with ``:`` between the parts (``git/commit.md`` is ``git:commit``), as OpenClaw's
    loader of Claude bundles names them."""
    text = inspection.read_text(rel)
    if text is None:
        return
    front = parse_front_matter(text)
    if front.problem:
        inspection.add(adapters_codes.SKILL_INVALID(f"{rel}: {front.problem}"))
    if front.data.get("user-invocable") is False:
        inspection.add(
            codes.CLAUDE_COMMAND_FIELD_IGNORED(
                f"{rel}: `user-invocable: false`: not a slash command (in Claude Code only "
                "the model invokes it; the gateway has no such path)"
            )
        )
        return
    detail: dict[str, Any] = {"path": rel}
    if shell_lines(front.body):
        detail["shell_lines"] = True
    ignored = command_issues(inspection, rel, text)
    if ignored:
        detail["not_applied"] = ignored
    hint = front.data.get("argument-hint")
    if isinstance(hint, str | list):
        detail["argument_hint"] = hint if isinstance(hint, str) else " ".join(map(str, hint))
    entry.contributions.append(
        Contribution(
            kind="prompt",
            name=front.text("name") or name,
            description=front.description,
            detail=detail,
        )
    )


def _markdown_files(
    inspection: Inspection, default: str, extra: list[str]
) -> list[tuple[str, str]]:
    """The ``*.md`` files of the default folder and of the manifest's paths (files or
    folders), each once, in order, with their path below that folder without ``.md``
    (parts joined by ``:``)."""
    found: dict[str, str] = {}
    for place in [default, *extra]:
        if safe_is_file(inspection.root / place):
            if place.endswith(".md"):
                found.setdefault(place, posixpath.splitext(posixpath.basename(place))[0])
        elif safe_is_dir(inspection.root / place):
            for rel, is_dir in inspection.walk(place):
                if not is_dir and rel.endswith(".md"):
                    below = posixpath.relpath(rel, place)
                    found.setdefault(rel, posixpath.splitext(below)[0].replace("/", ":"))
    return list(found.items())


def _skills(inspection: Inspection, extra: list[str]) -> list[str]:
    found: list[str] = []
    for place in ["skills", *extra]:
        if safe_is_dir(inspection.root / place):
            found += [rel for rel in skill_files(inspection, place) if rel not in found]
    return found
