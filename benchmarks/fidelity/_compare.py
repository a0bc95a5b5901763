"""What each side registered, in one vocabulary, and the verdict with each difference's cause.

Event subscriptions are compared on the gateway's canonical events: the ecosystem's own
event names are mapped with the tables the gateway documents (docs/pi.md, docs/openclaw.md,
docs/nanobot.md), written out here again so that the harness does not take them from the
code it checks. An event with no canonical mapping is its own difference ("unmapped"),
unless the gateway registered that same hook too: an OpenClaw hook of an event a headless
gateway never has (subagents, cron, channels, …) is registered and kept there as OpenClaw
keeps it, with ``openclaw.hook_never_emitted`` naming it, and the two registrations are
compared by name (what each side registered is what the harness compares; neither side calls
them while loading).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from _vocabulary import (  # noqa: F401  (re-exported: run.py, _claude.py, _report.py)
    _API_MISSING,
    _NATIVE,
    _SANDBOX,
    CATEGORIES,
    CAUSES,
    FAILURES,
    NANOBOT_POINTS,
    OPENCLAW_HOOKS,
    PI_EVENTS,
    PI_LEGACY_EVENTS,
)

from gateway.base.names import BUILTIN_TOOL_NAMES

# The gateway's openclaw.tool_contract: a tool registered because the plugin declares an
# OpenClaw that accepted it.
_CONTRACT_BEFORE = re.compile(r"declares an OpenClaw before 2026\.5\.2, which accepts it")


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
    # own events with no canonical one that the gateway registered (and never emits, as it
    # never has them: openclaw.hook_never_emitted), compared by name with the host's unmapped
    recorded: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)  # load errors (partial or whole)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **{c: sorted(getattr(self, c)) for c in CATEGORIES},
            "unmapped": self.unmapped,
            "recorded": sorted(self.recorded),
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
        elif code == "openclaw.hook_never_emitted" and d.get("contribution"):
            view.recorded.add(str(d["contribution"]))
            view.notes.append(d.get("message", "")[:300])
        elif d.get("code") in (
            "pi.event_unmapped",
            "openclaw.hook_unmapped",
            "nanobot.hook_point_unmapped",
            "openclaw.hook_unknown",
            "openclaw.tool_contract",
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
                    _extra_cause(ecosystem, category, item, host, gw, host_raw),
                )
            )
    for event in sorted(gw.recorded - set(host.unmapped)):
        found.append(Difference("events", "extra", [event], "extra-hooks-listed"))
    for event in host.unmapped:
        if event in gw.recorded:
            continue  # registered on both sides; neither host emits it here
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
    ecosystem: str, category: str, item: str, host: View, gw: View, host_raw: dict[str, Any]
) -> str:
    notes = "\n".join(host.notes)
    if ecosystem == "openclaw":
        if category == "tools" and _CONTRACT_BEFORE.search("\n".join(gw.notes)):
            return "openclaw-declared-before-tool-contract"
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
