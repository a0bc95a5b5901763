"""Reading a Claude Code plugin into a catalog entry: its manifest, slash commands,
skills, subagents (listed, unsupported), hooks and MCP servers. Runs nothing."""

from __future__ import annotations

import posixpath
from typing import Any, Final

from adapters import _codes as codes
from adapters._files import Inspection, safe_is_dir, safe_is_file
from adapters._markdown import skill_contribution, skill_files
from adapters.claude_plugins._commands import command_issues
from adapters.claude_plugins._components import read_hook_sources, read_mcp_servers
from adapters.claude_plugins._manifest import MANIFEST, read_manifest
from adapters.plugin_host._hook_config import EVENT_OF
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
    for rel in _markdown_files(inspection, "commands", manifest.paths.get("commands", [])):
        _command(inspection, entry, rel)
    for rel in _skills(inspection, manifest.paths.get("skills", [])):
        skill = skill_contribution(inspection, rel)
        if skill is not None:
            entry.contributions.append(skill)
    agents = [
        posixpath.splitext(posixpath.basename(rel))[0]
        for rel in _markdown_files(inspection, "agents", manifest.paths.get("agents", []))
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
    entry.metadata = {
        "license": manifest.license,
        "homepage": manifest.homepage,
        "agents": agents,
        "hooks": hooks,
        "unsupported_hook_events": skipped_events,
        "mcp_servers": servers,
        "remote_mcp_servers": remote,
    }
    entry.runtime = "python-sidecar" if hooks or servers else "declarative"
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _command(inspection: Inspection, entry: CatalogEntry, rel: str) -> None:
    text = inspection.read_text(rel)
    if text is None:
        return
    front = parse_front_matter(text)
    if front.problem:
        inspection.add(codes.SKILL_INVALID(f"{rel}: {front.problem}"))
    detail: dict[str, Any] = {"path": rel}
    ignored = command_issues(inspection, rel, text)
    if ignored:
        detail["not_applied"] = ignored
    hint = front.data.get("argument-hint")
    if isinstance(hint, str | list):
        detail["argument_hint"] = hint if isinstance(hint, str) else " ".join(map(str, hint))
    entry.contributions.append(
        Contribution(
            kind="prompt",
            name=posixpath.splitext(posixpath.basename(rel))[0],
            description=front.description,
            detail=detail,
        )
    )


def _markdown_files(inspection: Inspection, default: str, extra: list[str]) -> list[str]:
    """The ``*.md`` files of the default folder and of the manifest's paths (files or
    folders), each once, in order."""
    found: list[str] = []
    for place in [default, *extra]:
        if safe_is_file(inspection.root / place):
            candidates = [place] if place.endswith(".md") else []
        elif safe_is_dir(inspection.root / place):
            candidates = [
                rel for rel, is_dir in inspection.walk(place) if not is_dir and rel.endswith(".md")
            ]
        else:
            continue
        found += [rel for rel in candidates if rel not in found]
    return found


def _skills(inspection: Inspection, extra: list[str]) -> list[str]:
    found: list[str] = []
    for place in ["skills", *extra]:
        if safe_is_dir(inspection.root / place):
            found += [rel for rel in skill_files(inspection, place) if rel not in found]
    return found
