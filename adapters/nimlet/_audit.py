"""What nimlet accepts, and what the gateway does with nimlet's formats: the audit knowledge
of this adapter.

Sources: the nimlet document (``000_…``) and current upstream (``nimlet-current.md``: the
ninth event ``context``, tool content parts, ``tool_update``, ``host_request``) for the
``nimlet`` column; ``docs/compatibility.md`` (the nimlet rows) for the ``gateway`` column,
where nimlet is the native protocol.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import foreign, metadata, runs, unsupported
from gateway.audit import Found, Item, SourceFile, Support, Target
from gateway.host import EVENT_UNKNOWN
from gateway.model import CatalogEntry

__all__ = ["NIMLET_EVENTS", "NimletAudit"]

NIMLET_EVENTS: Final = frozenset({
    "tool_call", "tool_result", "turn_start", "turn_end", "session_start", "session_end",
    "session_before_compact", "session_compact", "context",
})  # fmt: skip
"""The nine hook names of current nimlet (the older document has the first eight)."""
_CONCEPTS: Final = frozenset(
    {"tool", "command", "hook", "skill", "prompt", "theme", "extension", "api"}
)
_CURRENT: Final = (
    ("tool_update", re.compile(r"""["']tool_update["']""")),
    ("host_request", re.compile(r"""["']host_request["']""")),
    ("content parts", re.compile(r"""["']content["']\s*:\s*\[""")),
)


class NimletAudit:
    ecosystem = "nimlet"

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem != "nimlet":
            return foreign(
                "nimlet",
                item,
                _CONCEPTS,
                "it starts extension.json processes and reads tool.json, SKILL.md and prompts",
            )
        if item.kind == "hook":
            if item.name not in NIMLET_EVENTS:
                return unsupported(
                    EVENT_UNKNOWN,
                    f"{item.name!r} is not a nimlet event: accepted, never fired",
                )
            if item.name == "context":
                return runs("current nimlet's ninth event (the older document has eight)")
        if item.kind == "skill":
            return runs("name and description in the system prompt; the body through read_skill")
        return runs("nimlet's own format")

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "hook" and item.name not in NIMLET_EVENTS:
            return unsupported(
                EVENT_UNKNOWN,
                f"{item.name!r} is not a nimlet event: accepted, never fired",
            )
        if item.kind == "skill":
            return metadata(
                adapters_codes.LISTED_ONLY,
                "name, description and path listed for the embedding agent, which reads the body",
            )
        reasons = {
            "tool": "one process per call (tool.json), or the extension's own process",
            "prompt": "becomes a slash command returning a prompt ($ARGUMENTS, $@)",
            "extension": "a long-running nimlet-protocol process: its tools, commands and hooks "
            "register at start",
            "command": "a slash command of the extension",
            "hook": "the canonical event, nimlet's rules (sequential, gate and chain)",
        }
        return runs(reasons.get(item.kind, "nimlet is the gateway's native protocol"))

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        """A nimlet extension declares its tools, commands and events in ``register`` at run
        time; the scan does not guess them (``--load`` shows them)."""
        return []

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        if entry.runtime != "nimlet-process":
            return []
        used = [
            name
            for name, pattern in _CURRENT
            if any(pattern.search(s.text) for s in sources if s.reachable)
        ]
        note = (
            f"uses current nimlet's {', '.join(used)}"
            if used
            else "no current-nimlet additions found in its code"
        )
        return [Target("nimlet protocol", "version 1", note)]
