"""What Codex does with a package, and what the gateway does with a Codex plugin: the audit
knowledge of this adapter (``gateway audit``'s ``codex`` column).

Sources: Codex's plugin documentation (developers.openai.com/codex/plugins), openai/plugins'
plugin-json-spec.md and black-box runs of ``@openai/codex@0.171.0`` for the ``codex`` host
(it reads ``.codex-plugin/plugin.json``, a root Agent Plugin, and ``.claude-plugin``'s
skills); docs/codex-plugins.md for the ``gateway`` column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import foreign, metadata, runs, unsupported
from adapters.codex import _codes as codes
from gateway.audit import Found, Item, SourceFile, Support, Target
from gateway.model import CatalogEntry

__all__ = ["CodexAudit"]

_CONCEPTS: Final = frozenset({"skill", "mcp_server", "hook", "app"})
_READS: Final = frozenset({"codex", "agent-plugins", "claude"})


class CodexAudit:
    ecosystem = "codex"

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem not in _READS:
            return foreign(
                self.ecosystem, item, _CONCEPTS,
                "it reads .codex-plugin/plugin.json, a root Agent Plugin or .claude-plugin",
            )  # fmt: skip
        if entry.ecosystem == "claude" and item.kind not in ("skill", "mcp_server", "hook"):
            return unsupported(
                adapters_codes.LISTED_ONLY,
                f"Codex reads a Claude Code plugin's skills, not its {item.kind}s",
            )
        return runs("a component Codex loads from an enabled plugin")

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "mcp_server":
            transport = item.detail.get("transport")
            if transport not in (None, "stdio"):
                return unsupported(
                    codes.CODEX_REMOTE_SERVER, f"a {transport} server is listed, not connected"
                )
            return runs("started by the plugin host in the plugin's sandbox, tools named "
                        "mcp__<server>__<tool> as in Codex")  # fmt: skip
        if item.kind == "app":
            return unsupported(
                codes.CODEX_APP_UNSUPPORTED,
                "a ChatGPT connector; needs Codex's hosted apps and sign-in",
            )
        if item.kind == "hook":
            return runs("a command hook run by the plugin host (Claude Code's hook protocol)")
        if item.kind == "skill":
            return metadata(
                adapters_codes.LISTED_ONLY, "name (<plugin>:<skill>), description and path listed"
            )
        return runs("Codex's own format")

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        return []

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        return [Target("codex", "0.171.0", ".codex-plugin/plugin.json (Codex's reader)")]
