"""What Nu accepts, and what the gateway does with Nu packages: the audit knowledge of this
adapter.

Source: the Nu document (``003_…``; no public Nu exists, nu-notes.md) for the ``nu``
column: ``tool.yaml`` tools, skills, extension modules with four hooks and five registrars,
client commands, secrets and settings. The ``gateway`` column says what docs/compatibility.md
and docs/nu.md say: tools run one fresh Node per call, extensions in the Node sidecar's Nu
host, and the registrars a headless host cannot honour are ``nu.unsupported_api``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from adapters._audit import call_sites, foreign, runs, unsupported
from adapters.nu import _codes as codes
from gateway.audit import Found, Item, SourceFile, Support, Target
from gateway.model import CatalogEntry

__all__ = ["NU_HOOKS", "NuAudit"]

NU_HOOKS: Final = frozenset({"before_agent_start", "input", "turn_end", "tool_execution_end"})
REGISTRARS: Final = {
    "registerChannel": "channel",
    "registerMemoryStore": "memory",
    "registerBrowserProvider": "provider",
    "registerSandbox": "api",
    "registerWatcher": "service",
}
_CONCEPTS: Final = frozenset({
    "tool", "skill", "command", "hook", "channel", "memory", "provider", "service", "config",
    "secret", "extension", "api",
})  # fmt: skip


_CANONICAL: Final = {
    "before_agent_start": "before_agent_start",
    "input": "input",
    "turn_end": "turn_end",
    "tool_execution_end": "tool_result",
}
_UNSUPPORTED: Final = {  # as the sidecar's Nu host reports them (sidecars/lib/nu/api.mjs)
    "registerChannel": "a channel to a chat app needs Nu's chat front end; the gateway has none",
    "registerMemoryStore": "the gateway keeps no memory of its own for a store to replace",
    "registerBrowserProvider": "the gateway has no browser tools for a provider to serve",
    "registerSandbox": "the gateway confines processes itself; it does not hand that over",
}
_GATEWAY_RUNS: Final = {
    "tool": "a fresh Node per call reading only its bundle, in the package's sandbox",
    "extension": "in the Node sidecar's Nu host, after trust",
    "command": "client.commands: a prompt with {args} replaced",
    "skill": "served by the gateway itself: listed with the agent's skills",
    "config": "`gateway config ID KEY VALUE`, read as config / nu.config",
    "secret": "`gateway secret set`: the tool's environment, nu.secret in extensions",
    "service": "registerWatcher: trigger(text) becomes the agent's input",
    "api": "nu.secret reads only the secrets the package lists",
}


class NuAudit:
    ecosystem = "nu"

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem != "nu":
            return foreign(
                "nu", item, _CONCEPTS, "it loads packages with a `nu` key in package.json"
            )
        if item.kind == "hook" and item.name not in NU_HOOKS:
            return unsupported(
                codes.NU_HOOK_UNKNOWN, f"{item.name!r} is not one of Nu's four hooks"
            )
        reasons = {
            "tool": "a fresh process per call running the tool's bundle",
            "command": "client.commands: the message is sent as if typed",
            "extension": "runs inside Nu with Nu's own access",
            "secret": "visible to tools as environment variables, to extensions through nu.secret",
            "config": "`nu config set`, read as config / nu.config",
        }
        return runs(reasons.get(item.kind, "Nu's own host"))

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "hook":
            if item.name not in NU_HOOKS:
                return unsupported(
                    codes.NU_EVENT_UNKNOWN, f"{item.name!r} is not one of Nu's four hooks"
                )
            return runs(f"the Node sidecar's Nu host: canonical {_CANONICAL[item.name]}")
        if item.name in _UNSUPPORTED:
            return unsupported(codes.NU_UNSUPPORTED_API, f"{item.name}: {_UNSUPPORTED[item.name]}")
        return runs(_GATEWAY_RUNS.get(item.kind, "the Node sidecar's Nu host"))

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        found = call_sites(sources, {"on": "hook"}, "nu", receiver="nu", named_by={"on": "string"})
        found += call_sites(sources, REGISTRARS, "nu", receiver="nu")
        found += call_sites(sources, {"secret": "api"}, "nu", receiver="nu")
        return found

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        namespace = entry.metadata.get("namespace")
        if not isinstance(namespace, str):
            return []
        return [Target("nu", f"namespace {namespace}", "the Nu document (synthetic: no public Nu)")]
