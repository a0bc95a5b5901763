"""What Pi accepts, and what the gateway's Pi host does: the audit knowledge of this adapter.

Sources: ``pi-upstream.md`` (Pi 1.6.0: the ``pi`` API, §2; the event table, §5; package
conventions, §1.1) for the ``pi`` column, and ``docs/pi.md`` (the sidecar's Pi host) for the
``gateway`` column. ``GATEWAY_EVENTS`` mirrors the mapping in ``sidecars/lib/pi/events.mjs``
(with ``events.extended``); ``tests/gateway/audit/test_truth.py`` loads a package that
listens to every Pi event and checks the two agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Final

from adapters._audit import call_sites, foreign, metadata, partial, runs, unsupported
from adapters.pi import _codes as codes
from adapters.pi._inspect import inspect_package
from adapters.pi._removed import pi_ai_globals, pi_host_lines
from gateway.audit import Found, HostLine, Item, SourceFile, Support, Target
from gateway.model import CatalogEntry

__all__ = ["GATEWAY_EVENTS", "PI_EVENTS", "SIDECAR_EVENTS", "TRANSLATED_EVENTS", "PiAudit"]

PI_EVENTS: Final = frozenset({
    "project_trust", "resources_discover", "session_start", "session_info_changed",
    "session_before_switch", "session_before_fork", "session_before_compact", "session_compact",
    "session_compact_failed", "session_before_tree", "session_tree", "session_shutdown",
    "mcp_servers_change", "input", "before_agent_start", "agent_start", "agent_end",
    "agent_before_settle", "agent_settled", "ui_prompt_start", "ui_prompt_end", "turn_start",
    "turn_end", "message_start", "message_update", "message_end", "tool_execution_start",
    "tool_execution_update", "tool_execution_end", "context", "context_with_system",
    "before_provider_headers", "before_provider_request", "after_provider_response",
    "provider_stream_event", "cache_warming_decision", "model_select", "thinking_level_select",
    "tool_call", "tool_result", "user_bash",
})  # fmt: skip
"""Pi 1.6.0's events (pi-upstream.md §5)."""
REMOVED_EVENTS: Final = frozenset({"session_switch", "session_fork", "session_directory"})
"""Gone since Pi 0.65."""

GATEWAY_EVENTS: Final = {
    "tool_execution_start": ("tool_call",),
    "tool_call": ("tool_call",),
    "tool_result": ("tool_result",),
    "tool_execution_end": ("tool_result",),
    "agent_start": ("turn_start",),
    "turn_start": ("turn_start",),
    "turn_end": ("turn_end",),
    "agent_end": ("turn_end",),
    "agent_settled": ("turn_end",),
    "session_start": ("session_start",),
    "resources_discover": ("session_start",),
    "session_switch": ("session_start",),
    "session_fork": ("session_start",),
    "session_before_switch": ("session_end",),
    "session_before_fork": ("session_end",),
    "session_shutdown": ("session_end",),
    "session_before_compact": ("session_before_compact",),
    "session_compact": ("session_compact",),
    "input": ("input",),
    "before_agent_start": ("before_agent_start",),
    "context": ("context_transform",),
    "message_start": ("message_received", "message_sending"),
    "message_end": ("message_received", "message_sending"),
}
"""Pi event -> the canonical events the gateway dispatches it at (docs/pi.md, "Events")."""
SIDECAR_EVENTS: Final = {
    "session_info_changed": "emitted by the sidecar's Pi host when pi.setSessionName names the "
    "session, as Pi emits it (not at a canonical event)",
}
"""Pi events the sidecar's Pi host emits itself from a Pi API call (``sidecars/lib/pi/
dispatch.mjs`` ``SIDECAR_EVENTS``), with why."""
UNMAPPED_BECAUSE: Final = {
    "project_trust": "Pi asks global extensions to decide project trust before project "
    "resources load; in the gateway workspace trust is the user's decision (gateway trust), "
    "never a package's",
}
"""Why an unmapped event cannot run, where the general reason says too little (the sidecar
says the same: ``sidecars/lib/pi/dispatch.mjs`` ``UNMAPPED_BECAUSE``)."""
TRANSLATED_EVENTS: Final = frozenset({"session_switch", "session_fork"})
"""Removed events the sidecar translates to their replacement (``sidecars/lib/pi/legacy.mjs``)."""

_RUNS, _PARTIAL, _UNSUPPORTED = "runs", "partial", "unsupported"
# Pi API method -> (item kind, gateway status, why).
API: Final[dict[str, tuple[str, str, str]]] = {
    "registerTool": ("tool", _RUNS, "a tool; later ones by registration.update"),
    "registerCommand": ("command", _RUNS, "a slash command; duplicates get :N suffixes as in Pi"),
    "on": ("hook", _RUNS, "see the event"),
    "registerFlag": ("flag", _RUNS, "flag defaults and getFlag work"),
    "getFlag": ("api", _RUNS, "reads the flag's default"),
    "events.emit": ("api", _RUNS, "Pi's own event bus"),
    "events.on": ("api", _RUNS, "Pi's own event bus"),
    "getActiveTools": ("api", _RUNS, "the active set is what the host registers"),
    "setActiveTools": ("api", _RUNS, "the active set is what the host registers"),
    "getAllTools": ("api", _RUNS, "the sidecar's tools"),
    "getCommands": ("api", _RUNS, "the sidecar's commands"),
    "appendEntry": ("api", _RUNS, "a session entry, never sent to a model"),
    "exec": ("api", _RUNS, "runs on the host under Gateway.exec_policy (host.request exec)"),
    "sendMessage": (
        "api",
        _PARTIAL,
        "in a command: the reply's message; while a run starts (Pi >= 1.2) queued into it; "
        "else a notification",
    ),
    "sendUserMessage": (
        "api",
        _RUNS,
        "in a command: the reply's prompt; else a user_message, deliverAs steer/followUp onto "
        "the host's steering/follow-up queues",
    ),
    "setSessionName": ("api", _PARTIAL, "kept inside the sidecar; fires session_info_changed"),
    "getSessionName": ("api", _PARTIAL, "kept inside the sidecar"),
    "setLabel": ("api", _PARTIAL, "kept inside the sidecar"),
    "getSettings": ("api", _PARTIAL, "an empty settings object"),
    "setModel": ("api", _UNSUPPORTED, "model control is the embedding agent's (returns false)"),
    "setThinkingLevel": ("api", _UNSUPPORTED, "thinking control belongs to the embedding agent"),
    "getThinkingLevel": ("api", _UNSUPPORTED, "always \"off\""),
    "registerProvider": ("llm_provider", _UNSUPPORTED, "providers belong to the embedding agent"),
    "unregisterProvider": ("api", _UNSUPPORTED, "providers belong to the embedding agent"),
    "registerVirtualModel": ("llm_provider", _UNSUPPORTED, "models belong to the embedding agent"),
    "registerMcpServer": ("mcp_server", _UNSUPPORTED, "the gateway has no MCP client for packages"),
    "registerShortcut": ("shortcut", _UNSUPPORTED, "a headless host has no keyboard"),
    "registerMessageRenderer": ("renderer", _UNSUPPORTED, "a headless host renders no TUI"),
    "registerEntryRenderer": ("renderer", _UNSUPPORTED, "a headless host renders no TUI"),
    "registerToolRenderer": ("renderer", _UNSUPPORTED, "a headless host renders no TUI"),
    "registerMarkdownTransformer": ("renderer", _UNSUPPORTED, "a headless host renders no TUI"),
    "ctx.newSession": ("api", _PARTIAL, "a host action for the embedding agent (host.actions)"),
    "ctx.shutdown": ("api", _PARTIAL, "a host action for the embedding agent (host.actions)"),
    "ctx.reload": ("api", _PARTIAL, "a host action for the embedding agent (host.actions)"),
    "ctx.compact": ("api", _PARTIAL, "a host action for the embedding agent (host.actions)"),
    "ctx.fork": ("api", _UNSUPPORTED, "answers {cancelled: true}"),
    "ctx.navigateTree": ("api", _UNSUPPORTED, "answers {cancelled: true}"),
    "ctx.switchSession": ("api", _UNSUPPORTED, "answers {cancelled: true}"),
    "ctx.modelRegistry": ("api", _PARTIAL, "a stub: getAll() is empty unless lent models"),
    "ctx.ui.custom": ("api", _UNSUPPORTED, "TUI components are Pi's headless no-ops"),
    "ctx.ui.setFooter": ("api", _UNSUPPORTED, "TUI components are Pi's headless no-ops"),
    "ctx.ui.setHeader": ("api", _UNSUPPORTED, "TUI components are Pi's headless no-ops"),
    "ctx.ui.setEditorComponent": ("api", _UNSUPPORTED, "TUI components are Pi's headless no-ops"),
    "ctx.ui.onTerminalInput": ("api", _UNSUPPORTED, "a headless host has no terminal"),
    "ctx.ui.setTheme": ("api", _UNSUPPORTED, "a headless host has no theme"),
    "ctx.ui.select": ("api", _RUNS, "a user question (ui_request)"),
    "ctx.ui.confirm": ("api", _RUNS, "a user question (ui_request)"),
    "ctx.ui.input": ("api", _RUNS, "a user question (host.request ui.input)"),
    "ctx.ui.editor": ("api", _RUNS, "the embedding agent's editor (host.request ui.editor)"),
    "ctx.ui.notify": ("api", _RUNS, "a notification"),
    "ctx.ui.setStatus": ("api", _RUNS, "a status line"),
    "ctx.ui.setWidget": ("api", _RUNS, "a widget (string lines)"),
}  # fmt: skip
_PI_METHODS: Final = {m: kind for m, (kind, _, _) in API.items() if "." not in m}
_CTX_METHODS: Final = {m[4:]: kind for m, (kind, _, _) in API.items() if m.startswith("ctx.")}
_NAMED_BY: Final = {
    "registerTool": "object",
    "registerCommand": "string",
    "on": "string",
    "registerFlag": "string",
    "registerShortcut": "string",
    "registerProvider": "string",
    "registerMcpServer": "string",
    "registerMessageRenderer": "string",
    "registerEntryRenderer": "string",
}
_API_OF_KIND: Final = {"tool": "registerTool", "command": "registerCommand", "flag": "registerFlag"}
_PI_CONCEPTS: Final = frozenset({
    "tool", "command", "hook", "skill", "prompt", "theme", "flag", "shortcut", "renderer",
    "llm_provider", "mcp_server", "extension", "api",
})  # fmt: skip
_SCOPES: Final = (
    ("@earendil-works/pi-coding-agent", "generation C (Pi 0.74 to 1.6)"),
    ("@mariozechner/pi-coding-agent", "generations A/B (Pi ≤ 0.73.1), mapped by Pi 1.6"),
)
_IMPORT_SCOPE = re.compile(r"""["'](@earendil-works|@mariozechner)/pi-[a-z-]+["']""")


class PiAudit:
    ecosystem = "pi"

    # ------------------------------------------------------------------ the pi column

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem != "pi" and not _pi_wrapper(entry):
            return self._foreign(entry, item)
        if item.kind == "hook":
            if item.name in REMOVED_EVENTS:
                return unsupported(
                    codes.PI_EVENT_REMOVED,
                    f"{item.name} was removed in Pi 0.65 (use session_start's reason)",
                )
            if item.name not in PI_EVENTS:
                return unsupported(
                    codes.PI_EVENT_UNKNOWN,
                    f"{item.name!r} is not a Pi 1.6 event; its handlers never run",
                )
        if item.kind in ("config", "secret"):
            return runs("read by the package itself (Pi has no manifest for it)")
        return runs("Pi's own host (1.6): the package's native API")

    def _foreign(self, entry: CatalogEntry, item: Item) -> Support:
        """Pi installs any npm or git package and, without a ``pi`` manifest, loads its
        ``extensions/``, ``skills/``, ``prompts/`` and ``themes/`` folders."""
        if item.kind in ("skill", "prompt", "theme") and (item.kind, item.name) in _pi_reading(
            entry.root
        ):
            return runs(f"Pi loads the package's {item.kind}s/ folder by its conventions")
        return foreign(
            "pi",
            item,
            _PI_CONCEPTS,
            "it loads `pi` manifests and the extensions/, skills/, prompts/, themes/ conventions",
        )

    # ------------------------------------------------------------------ the gateway column

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "hook":
            return self._gateway_event(item.name)
        if item.kind == "skill":
            return runs("served by the gateway itself: listed with the agent's skills")
        if item.kind == "prompt":
            return runs("served by the gateway itself as a slash command, with Pi's argument rules")
        if item.kind == "theme":
            return metadata(
                codes.PI_RESOURCE_METADATA_ONLY,
                "listed by `gateway inspect`; a theme styles Pi's terminal UI, which a headless "
                "gateway does not draw",
            )
        if item.kind == "extension":
            return runs("loaded by Pi's own loader in the Node sidecar")
        if item.kind in ("config", "secret"):
            return runs("read by the package itself")
        method = item.detail.get("api") if isinstance(item.detail.get("api"), str) else None
        method = method or _API_OF_KIND.get(item.kind) or item.name
        known = API.get(str(method))
        if known is None:
            return unsupported(
                codes.PI_UNSUPPORTED_API, f"{method} is not offered by the gateway's Pi host"
            )
        _, status, why = known
        if status == _RUNS:
            return runs(why)
        if status == _PARTIAL:
            return partial(codes.PI_API_PARTIAL, why)
        return unsupported(codes.PI_UNSUPPORTED_API, why)

    @staticmethod
    def _gateway_event(event: str) -> Support:
        canonical = GATEWAY_EVENTS.get(event)
        if event in TRANSLATED_EVENTS:
            return partial(
                codes.PI_LEGACY_EVENT_TRANSLATED,
                f"{event!r} was removed in Pi 0.65; translated to session_start's reason and "
                f"dispatched at the canonical {', '.join(canonical or ())}",
            )
        if event in SIDECAR_EVENTS:
            return runs(SIDECAR_EVENTS[event])
        if canonical is None:
            because = f": {UNMAPPED_BECAUSE[event]}" if event in UNMAPPED_BECAUSE else ""
            return unsupported(
                codes.PI_EVENT_UNMAPPED,
                f"{event!r} has no canonical event in the gateway{because}; its handlers never run",
            )
        return runs(f"dispatched at the canonical {', '.join(canonical)}, with Pi's return rules")

    # ------------------------------------------------------------------ the code

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        found = call_sites(
            sources,
            {"on": "hook"},
            "pi",
            named_by={"on": "string"},
            names=PI_EVENTS | REMOVED_EVENTS,
        )
        methods = {m: k for m, k in _PI_METHODS.items() if m not in ("on", "exec")}
        found += call_sites(sources, methods, "pi", named_by=_NAMED_BY)
        # `.exec(` is also RegExp's: only on the names Pi's API object goes by.
        found += call_sites(sources, {"exec": "api"}, "pi", receiver="pi|api")
        found += call_sites(
            sources, {"emit": "api", "on": "api"}, "pi", receiver=r"\w+\.events", prefix="events."
        )
        session = {
            m: k for m, k in _CTX_METHODS.items() if not m.startswith(("ui.", "modelRegistry"))
        }
        found += call_sites(sources, session, "pi", receiver="ctx", prefix="ctx.")
        ui = {m[3:]: k for m, k in _CTX_METHODS.items() if m.startswith("ui.")}
        found += call_sites(sources, ui, "pi", receiver=r"ctx\.ui", prefix="ctx.ui.")
        return found

    def host_lines(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[HostLine]:
        """The current Pi (1.6), and what of the package's code it removed (``_removed``)."""
        if entry.ecosystem != "pi":
            return []
        return pi_host_lines(sources)

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        declared = _declared_scopes(Path(entry.root))
        imported = {
            m.group(1) for s in sources if s.reachable for m in _IMPORT_SCOPE.finditer(s.text)
        }
        found = []
        for name, note in _SCOPES:
            scope = name.split("/")[0]
            if name in declared or scope in imported:
                where = [
                    w
                    for w, hit in (
                        ("package.json", name in declared),
                        ("imports", scope in imported),
                    )
                    if hit
                ]
                found.append(
                    Target(
                        "pi",
                        f"{name} {declared.get(name, '')}".strip(),
                        f"{note}; from {' and '.join(where)}",
                    )
                )
        if not found and entry.entries:
            found.append(
                Target("pi", "no Pi package named", "type-only or no imports of Pi's packages")
            )
        return found + pi_ai_globals(sources)


def _pi_wrapper(entry: CatalogEntry) -> bool:
    """A nanobot package with ``runtime: pi`` is a Pi package to Pi."""
    return entry.ecosystem == "nanobot" and entry.metadata.get("nanobot_runtime") == "pi"


@lru_cache(maxsize=64)
def _pi_reading(root: str) -> frozenset[tuple[str, str]]:
    """What Pi itself reads from ``root`` by its conventions (skills, prompts, themes)."""
    entry = inspect_package(Path(root))
    return frozenset((c.kind, c.name) for c in entry.contributions)


def _declared_scopes(root: Path) -> dict[str, str]:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    found: dict[str, str] = {}
    for table in ("peerDependencies", "dependencies", "devDependencies"):
        deps = data.get(table) if isinstance(data, dict) else None
        if isinstance(deps, dict):
            for name, _ in _SCOPES:
                if name in deps and name not in found:
                    found[name] = str(deps[name])
    return found
