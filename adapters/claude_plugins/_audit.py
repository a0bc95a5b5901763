"""What the gateway does with a Claude Code plugin's contributions, and what Claude Code
does with any package: the audit knowledge of this adapter (``gateway audit``).

Sources: Claude Code's plugins and hooks references for the ``claude`` host (a column the
report shows once ``gateway.audit.HOSTS`` lists it); docs/claude-plugins.md for the
``gateway`` column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import foreign, metadata, partial, runs, unsupported
from adapters.claude_plugins import _codes as codes
from adapters.plugin_host import EVENT_OF, UNSUPPORTED_EVENTS
from gateway.audit import Evidence, Found, Item, SourceFile, Support, Target
from gateway.model import CatalogEntry

__all__ = ["ClaudeAudit"]

_CONCEPTS: Final = frozenset({"command", "prompt", "skill", "hook", "mcp_server", "agent"})
_MANIFEST: Final = ".claude-plugin/plugin.json"


class ClaudeAudit:
    ecosystem = "claude"

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem != "claude":
            return foreign(
                "claude", item, _CONCEPTS, "it loads folders with .claude-plugin/plugin.json"
            )
        return runs("Claude Code's own plugin format")

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "prompt":
            how = "a slash command with Claude Code's argument rules"
            if item.detail.get("shell_lines"):
                how += (
                    "; its `!` lines that allowed-tools allows run confined in the plugin "
                    "host, their output in the prompt"
                )
            ignored = item.detail.get("not_applied")
            if ignored:
                return partial(
                    codes.CLAUDE_COMMAND_FIELD_IGNORED,
                    f"{how}; not applied: " + ", ".join(map(str, ignored)),
                )
            return runs(how)
        if item.kind == "skill":
            return metadata(
                adapters_codes.LISTED_ONLY,
                "name, description and path listed for the embedding agent, which reads the body",
            )
        if item.kind == "hook":
            if item.name in EVENT_OF:
                return runs(
                    f"command hooks in the plugin host on {EVENT_OF[item.name]} (exit 2 and "
                    "JSON decisions, matchers, timeouts, fail-open)"
                )
            why = UNSUPPORTED_EVENTS.get(item.name, "not an event the gateway knows")
            return unsupported(adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED, f"never runs: {why}")
        if item.kind == "mcp_server":
            if item.detail.get("url"):
                return runs(
                    f"connected by the plugin host over {item.detail.get('transport')} with the "
                    f"grant {item.detail.get('grant')} (OAuth sign-in: gateway auth)"
                )
            return runs("a stdio MCP server in the plugin host; its tools named as Claude does")
        if item.kind == "agent":
            return unsupported(codes.CLAUDE_COMPONENT_UNSUPPORTED, "the gateway runs no subagents")
        return runs("read from the plugin's metadata")

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        """What the catalog entry lists without a contribution: subagents, hooks of events
        that never run (both declared in the plugin's files)."""
        if entry.ecosystem != "claude":
            return []
        found: list[Found] = []
        for name in entry.metadata.get("agents") or []:
            item = Item("agent", str(name), "claude")
            found.append(Found(item, f"agents/{name}.md", None, Evidence.DECLARED))
        for event in entry.metadata.get("unsupported_hook_events") or []:
            item = Item("hook", str(event), "claude")
            found.append(Found(item, "hooks/hooks.json", None, Evidence.DECLARED))
        return found

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        return []
