"""What Gemini CLI does with a package, and what the gateway does with a Gemini CLI
extension: the audit knowledge of this adapter (``gateway audit``'s ``gemini`` column).

Sources: Gemini CLI's extension reference (``docs/extensions/reference.md``, byte-identical in
``@google/gemini-cli@0.61.0``'s ``bundle/docs``) and its loader (``extension-manager.ts``)
for the ``gemini`` host; docs/gemini-extensions.md for the ``gateway`` column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import foreign, metadata, partial, runs, unsupported
from adapters.gemini import _codes as codes
from adapters.plugin_host import GEMINI_EVENT_OF, GEMINI_UNSUPPORTED_EVENTS
from gateway.audit import Evidence, Found, Item, SourceFile, Support, Target
from gateway.model import CatalogEntry

__all__ = ["GeminiAudit"]

_CONCEPTS: Final = frozenset({"mcp_server", "skill", "prompt", "hook", "context_file"})


class GeminiAudit:
    ecosystem = "gemini"

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem != self.ecosystem:
            return foreign(
                self.ecosystem, item, _CONCEPTS,
                "it loads ~/.gemini/extensions/<dir>/gemini-extension.json",
            )  # fmt: skip
        return runs("Gemini CLI's own extension format")

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "mcp_server":
            transport = item.detail.get("transport")
            if transport not in (None, "stdio"):
                return unsupported(
                    codes.GEMINI_REMOTE_SERVER, f"a {transport} server is listed, not connected"
                )
            return runs("started by the plugin host in the extension's sandbox, tools named "
                        "mcp_<server>_<tool> as in Gemini CLI")  # fmt: skip
        if item.kind == "prompt":
            if item.detail.get("injections"):
                return partial(
                    codes.GEMINI_COMMAND_INJECTION_NOT_RUN,
                    "a gateway command with {{args}}; its !{...}/@{...} kept as text",
                )
            return runs("a gateway command expanded by Gemini CLI's {{args}} rules")
        if item.kind in ("skill", "context_file"):
            return metadata(
                adapters_codes.LISTED_ONLY,
                "name, description and path listed; the embedding agent reads it",
            )
        if item.kind == "hook":
            if item.name in GEMINI_EVENT_OF:
                return runs(
                    f"command hooks in the plugin host on {GEMINI_EVENT_OF[item.name]} (exit 2 "
                    "and JSON decisions, regex matchers, timeouts in ms, fail-open)"
                )
            why = GEMINI_UNSUPPORTED_EVENTS.get(item.name, "not a Gemini CLI hook event")
            return unsupported(adapters_codes.GEMINI_HOOKS_NOT_RUN, f"never runs: {why}")
        return runs("Gemini CLI's own format")

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        """Hooks of events that never run (declared in hooks/hooks.json). The servers' code
        is theirs; what they offer is known only by running."""
        if entry.ecosystem != self.ecosystem:
            return []
        return [
            Found(Item("hook", str(event), "gemini"), "hooks/hooks.json", None, Evidence.DECLARED)
            for event in entry.metadata.get("unsupported_hook_events") or []
        ]

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        return [Target("gemini", "0.61.0", "gemini-extension.json (Gemini CLI's reader)")]
