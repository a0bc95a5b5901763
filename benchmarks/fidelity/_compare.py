"""What each side registered, in one vocabulary, and the verdict with each difference's cause.

Event subscriptions are compared on the gateway's canonical events: the ecosystem's own
event names are mapped with the tables the gateway documents (docs/pi.md, docs/openclaw.md,
docs/nanobot.md), written out here again so that the harness does not take them from the
code it checks. An event with no canonical mapping is its own difference ("unmapped").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gateway.base.names import BUILTIN_TOOL_NAMES

CATEGORIES = ("tools", "commands", "flags", "events", "skills", "prompts")

# Each cause a difference can have, and what it means.
CAUSES = {
    "builtin-override-refused": "a tool named like a built-in (gateway/base/names.py "
    "BUILTIN_TOOL_NAMES) is refused by the registry where its ecosystem lets an extension "
    "override it (Pi's tools take such a name unless the agent registered the built-in)",
    "pi-legacy-event-unmapped": "a Pi event removed in pi 0.65 that the gateway cannot translate "
    "(session_directory; session_switch and session_fork are translated to session_start): "
    "pi 1.6 keeps the handler, the gateway maps it to nothing",
    "pi-event-unsupported": "a Pi event with no canonical event (model_select, "
    "session_before_tree, user_bash, …): pi.event_unmapped",
    "openclaw-hook-unsupported": "an OpenClaw hook with no canonical event (subagent_*, "
    "before_model_resolve, …): openclaw.hook_unmapped",
    "nanobot-hook-point-unsupported": "an AgentHook point the gateway never calls",
    "extra-hooks-listed": "the gateway lists a hook for an event the package never subscribed "
    "to (nanobot: turn_end for every hook)",
    "pi-tool-inactive-by-host-version": "a tool Pi 1.6 registers inactive (defaultActive: false "
    "or an exposure other than direct / model-only) that the gateway registers active because "
    'the package declares a Pi before 0.99, which knew neither field (docs/pi.md, "Host '
    'versions")',
    "flags-not-surfaced": "Pi flags (registerFlag) load, but `gateway list` does not show them",
    "openclaw-skills-dropped": "the skills an OpenClaw plugin's manifest names are not listed",
    "openclaw-lenient": "the gateway registers what OpenClaw 2026.9.6 refuses (tools without "
    "contracts.tools, the removed before_agent_start hook): deliberate, as openclaw.md says",
    "openclaw-context-engine-fallback": "the plugin registers a context engine in OpenClaw; "
    "where registerContextEngine is undefined (the gateway, deliberately) it falls back to "
    "hooks",
    "openclaw-api-missing": "the plugin calls an `api` or `api.runtime` method the gateway "
    "does not provide, and its register fails",
    "openclaw-sdk-older-than-pinned": "the plugin declares an OpenClaw before 2026.8 and "
    "imports an SDK subpath that OpenClaw had then and 2026.8 removed (text-runtime); the "
    "gateway serves the pinned 2026.9.6 SDK only: openclaw.sdk_unavailable, naming it",
    "native-deps": "a dependency with a native addon or an install script: the gateway "
    "installs with --ignore-scripts",
    "sandbox-write": "the package writes under HOME or /tmp at load and the sandbox refuses",
    "gateway-load-failed": "the gateway failed to load what the own host loaded (other reasons)",
    "gateway-install-failed": "`gateway install` failed where the own host's install worked",
    "gateway-timeout": "the gateway did not finish in time",
    "unexplained": "a difference none of the above explains",
}

# docs/pi.md, "Events (nimlet canonical → Pi)"; `None`: emitted by the sidecar's Pi host
# itself from a Pi API call (session_info_changed on setSessionName), not a subscription.
PI_EVENTS: dict[str, tuple[str, ...] | None] = {
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
    "session_switch": ("session_start",),  # legacy, translated (pi.legacy_event_translated)
    "session_fork": ("session_start",),  # legacy, translated
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
    "session_info_changed": None,
}
PI_LEGACY_EVENTS = frozenset({"session_directory"})

# docs/openclaw.md, "Typed hooks (canonical event ← OpenClaw hook)"; `None`: run by the
# sidecar itself (start / stop), not a subscription.
OPENCLAW_HOOKS: dict[str, tuple[str, ...] | None] = {
    "before_tool_call": ("tool_call",),
    "tool_result_persist": ("tool_result",),
    "after_tool_call": ("tool_result",),
    "agent_end": ("turn_end",),
    "session_start": ("session_start",),
    "session_end": ("session_end",),
    "before_reset": ("session_end",),
    "before_compaction": ("session_before_compact",),
    "after_compaction": ("session_compact",),
    "before_dispatch": ("input",),
    "before_agent_reply": ("input",),
    "before_agent_run": ("input",),
    "agent_turn_prepare": ("before_agent_start",),
    "before_prompt_build": ("before_agent_start",),
    "before_agent_start": ("before_agent_start",),
    "llm_input": ("context",),
    "message_received": ("message_received",),
    "message_sending": ("message_sending",),
    "reply_payload_sending": ("message_sending",),
    "llm_output": ("message_sending",),
    "message_sent": ("message_sent",),
    "gateway_start": None,
    "gateway_stop": None,
    "deactivate": None,
}

# docs/nanobot.md, "Hooks: nanobot's AgentHook points on the gateway's events".
NANOBOT_POINTS: dict[str, tuple[str, ...]] = {
    "before_run": ("turn_start",),
    "after_run": ("turn_end",),
    "on_error": ("turn_end",),
    "on_finally": ("turn_end",),
    "before_execute_tool": ("tool_call",),
    "after_execute_tool": ("tool_result",),
    "on_execute_tool_error": ("tool_result",),
    "on_session_start": ("session_start",),
    "on_session_end": ("session_end",),
    "before_compact": ("session_before_compact",),
    "after_compact": ("session_compact",),
}

_NATIVE = re.compile(
    r"\.node\b|bindings file|NODE_MODULE_VERSION|node-gyp|prebuild|better-sqlite3|"
    r"sharp|node-pty|was compiled against|Cannot find module '[^']*build/Release",
    re.I,
)
_API_MISSING = re.compile(r"api\.[\w.]+ is not a function|api\.[\w.]+ is undefined")
_SANDBOX = re.compile(
    r"EACCES|EPERM|EROFS|read-only file system|operation not permitted|permission denied", re.I
)


# Diagnostics that say something did not load or start, whatever their severity.
FAILURES = frozenset(
    {
        "extension.exited",
        "runtime.unavailable",
        "openclaw.config_required",
        "sandbox.denied",
        "openclaw.sdk_unavailable",
        "openclaw.register_async",
    }
)


@dataclass(slots=True)
class View:
    """One side's registrations, canonical events included."""

    tools: set[str] = field(default_factory=set)
    commands: set[str] = field(default_factory=set)
    flags: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    skills: set[str] = field(default_factory=set)
    prompts: set[str] = field(default_factory=set)
    unmapped: list[str] = field(default_factory=list)  # own events with no canonical one
    errors: list[str] = field(default_factory=list)  # load errors (partial or whole)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **{c: sorted(getattr(self, c)) for c in CATEGORIES},
            "unmapped": self.unmapped,
            "errors": self.errors,
            "notes": self.notes,
        }


@dataclass(slots=True)
class Difference:
    category: str
    direction: str  # "missing" (host has it, gateway not) | "extra" (gateway only) | "load"
    items: list[str]
    cause: str
    detail: str = ""

    def describe(self) -> str:
        sign = {"missing": "-", "extra": "+", "load": "!"}[self.direction]
        return f"{self.category} {sign}{','.join(self.items)} [{self.cause}]"

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "direction": self.direction,
            "items": self.items,
            "cause": self.cause,
            "detail": self.detail,
        }


# --------------------------------------------------------------------------- host views


def pi_host(result: dict[str, Any]) -> tuple[View, bool]:
    """Pi's view, and whether pi loaded the package at all."""
    view = View(
        tools=set(result.get("tools", [])),
        commands=set(result.get("commands", [])),
        flags=set(result.get("flags", [])),
        skills=set(result.get("skills", [])),
        prompts=set(result.get("prompts", [])),
    )
    # Tools Pi registers inactive are offered to no model until activated; the gateway's
    # registry holds the active ones (docs/pi.md, "Host versions").
    view.tools -= set(result.get("inactiveTools", []))
    for event in result.get("events", []):
        mapped = PI_EVENTS.get(event, ())
        if mapped is None:
            continue
        if mapped:
            view.events.update(mapped)
        else:
            view.unmapped.append(event)
    view.errors = [f"{e['path']}: {e['error']}" for e in result.get("errors", [])]
    view.errors += result.get("resourceDiagnostics", [])
    loaded = bool(result.get("extensions")) or (
        not result.get("errors") and bool(view.skills or view.prompts)
    )
    if (
        not result.get("extensions")
        and not result.get("errors")
        and not (view.skills or view.prompts)
    ):
        view.notes.append("pi found nothing to load in it")
    return view, loaded


def openclaw_host(result: dict[str, Any]) -> tuple[View, bool]:
    view = View(
        tools=set(result.get("tools", [])),
        commands=set(result.get("commands", [])),
        skills=set(result.get("skills", [])),
    )
    for hook in result.get("hooks", []):
        mapped = OPENCLAW_HOOKS.get(hook, ())
        if mapped is None:
            continue
        if mapped:
            view.events.update(mapped)
        else:
            view.unmapped.append(hook)
    plugins = [p for p in result.get("plugins", []) if p.get("id") == result.get("pluginId")]
    loaded = bool(plugins) and all(p.get("status") == "loaded" for p in plugins)
    if result.get("missingManifest"):
        view.errors.append("no openclaw.plugin.json: OpenClaw's loader finds no plugin in it")
    for p in plugins:
        if p.get("status") != "loaded":
            view.errors.append(f"{p.get('status')}: {p.get('error') or ''}".strip())
    view.notes = [d["message"] for d in result.get("diagnostics", []) if d.get("level") == "error"]
    view.notes += [
        d["message"] for d in result.get("diagnostics", []) if "ignored" in d.get("message", "")
    ]
    if result.get("contextEngines"):
        view.notes.append("registerContextEngine: " + ", ".join(result["contextEngines"]))
    for api, count in (result.get("unsupported") or {}).items():
        view.notes.append(f"{api} x{count}")
    return view, loaded


def nanobot_host(result: dict[str, Any]) -> tuple[View, bool]:
    if "failed" in result:
        return View(errors=[result["failed"]]), False
    view = View(
        tools=set(result.get("tools", [])),
        commands={c.strip().lstrip("/").split(" ")[0] for c in result.get("commands", [])},
    )
    for point in result.get("hook_points", []):
        mapped = NANOBOT_POINTS.get(point)
        if mapped:
            view.events.update(mapped)
        else:
            view.unmapped.append(point)
    if result.get("note"):
        view.notes.append(result["note"])
    view.errors = list(result.get("factory_errors", []))
    view.skills = {name for kind, name in result.get("declared", []) if kind == "skill"}
    return view, True


def nimlet_host(result: dict[str, Any]) -> tuple[View, bool]:
    if "failed" in result:
        return View(errors=[result["failed"]]), False
    return View(
        tools=set(result.get("tools", [])),
        commands=set(result.get("commands", [])),
        events=set(result.get("events", [])),
        skills=set(result.get("skills", [])),
        prompts=set(result.get("prompts", [])),
    ), True


HOST_VIEWS = {
    "pi": pi_host,
    "openclaw": openclaw_host,
    "nanobot": nanobot_host,
    "nimlet": nimlet_host,
}


# --------------------------------------------------------------------------- gateway view


def gateway_view(listing: dict[str, Any]) -> View:
    """Everything ``gateway list --json`` shows: the private home holds only this package."""
    prompts = {p["name"] for p in listing.get("prompts", [])}
    view = View(
        tools={t["name"] for t in listing.get("tools", [])},
        commands={c["name"] for c in listing.get("commands", [])} - prompts,
        flags={f["name"] for f in listing.get("flags", [])},
        events={h["event"] for h in listing.get("hooks", [])},
        skills={s["name"] for s in listing.get("skills", [])},
        prompts=prompts,
    )
    for d in listing.get("diagnostics", []):
        code = str(d.get("code", ""))
        if code in FAILURES or code.endswith(("load_failed", "register_failed", "start_failed")):
            view.errors.append(f"{d.get('code')}: {d.get('message', '')}"[:1500])
        elif d.get("code") in (
            "pi.event_unmapped",
            "openclaw.hook_unmapped",
            "nanobot.hook_point_unmapped",
            "openclaw.hook_unknown",
        ):
            view.notes.append(d.get("message", "")[:300])
    return view


# --------------------------------------------------------------------------- the verdict


def _load_cause(messages: list[str]) -> str:
    text = "\n".join(messages)
    if _API_MISSING.search(text):
        return "openclaw-api-missing"
    if "openclaw.sdk_unavailable" in text and "(not in the pinned openclaw)" in text:
        return "openclaw-sdk-older-than-pinned"
    if _NATIVE.search(text):
        return "native-deps"
    if _SANDBOX.search(text):
        return "sandbox-write"
    if "timed out" in text or "took longer" in text:
        return "gateway-timeout"
    return "gateway-load-failed"


def differences(ecosystem: str, host: View, gw: View, host_raw: dict[str, Any]) -> list[Difference]:
    found: list[Difference] = []
    load_failed = bool(gw.errors)
    load_cause = _load_cause(gw.errors) if load_failed else ""
    if load_failed:
        found.append(Difference("load", "load", [], load_cause, gw.errors[0][:400]))
    for category in CATEGORIES:
        ours, theirs = getattr(host, category), getattr(gw, category)
        missing, extra = sorted(ours - theirs), sorted(theirs - ours)
        for item in missing:
            found.append(
                Difference(
                    category,
                    "missing",
                    [item],
                    _missing_cause(ecosystem, category, item, load_cause),
                )
            )
        for item in extra:
            found.append(
                Difference(
                    category,
                    "extra",
                    [item],
                    _extra_cause(ecosystem, category, item, host, host_raw),
                )
            )
    for event in host.unmapped:
        if ecosystem == "pi":
            cause = (
                "pi-legacy-event-unmapped" if event in PI_LEGACY_EVENTS else "pi-event-unsupported"
            )
        elif ecosystem == "openclaw":
            cause = "openclaw-hook-unsupported"
        else:
            cause = "nanobot-hook-point-unsupported"
        found.append(Difference("events", "missing", [event], cause))
    return _merge(found)


def _missing_cause(ecosystem: str, category: str, item: str, load_cause: str) -> str:
    if category == "tools" and item in BUILTIN_TOOL_NAMES:
        return "builtin-override-refused"
    if category == "flags":
        return "flags-not-surfaced"
    if ecosystem == "openclaw" and category == "skills":
        return "openclaw-skills-dropped"
    if load_cause:
        return load_cause
    return "unexplained"


def _extra_cause(
    ecosystem: str, category: str, item: str, host: View, host_raw: dict[str, Any]
) -> str:
    notes = "\n".join(host.notes)
    if ecosystem == "openclaw":
        if category == "tools" and "contracts.tools" in notes:
            return "openclaw-lenient"
        if category == "events" and re.search(r'unknown typed hook "[^"]+" ignored', notes):
            return "openclaw-lenient"
        if category == "events" and "registerContextEngine:" in notes:
            return "openclaw-context-engine-fallback"
    if category == "events":
        return "extra-hooks-listed"
    if ecosystem == "pi" and category == "tools" and item in host_raw.get("inactiveTools", []):
        return "pi-tool-inactive-by-host-version"
    return "unexplained"


def _merge(found: list[Difference]) -> list[Difference]:
    merged: dict[tuple[str, str, str], Difference] = {}
    for d in found:
        key = (d.category, d.direction, d.cause)
        if key in merged:
            merged[key].items += d.items
        else:
            merged[key] = Difference(d.category, d.direction, list(d.items), d.cause, d.detail)
    return list(merged.values())
