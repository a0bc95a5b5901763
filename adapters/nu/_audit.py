"""What Nu accepts, and what the gateway does with Nu packages: the audit knowledge of this
adapter.

Source: the Nu document (``003_…``; no public Nu exists, nu-notes.md) for the ``nu``
column: ``tool.yaml`` tools, skills, extension modules with four hooks and five registrars,
client commands, secrets and settings. The ``gateway`` column says what docs/compatibility.md
says: Nu packages install and are inspected, and their code does not run yet
(``runtime.unavailable``); ``NuAdapter.plan_launch`` refusing is what makes that true, and
``tests/adapters/test_audit_knowledge.py`` keeps the two together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from adapters import _codes as codes
from adapters._audit import call_sites, foreign, metadata, runs, unsupported
from gateway import _codes as gateway_codes
from gateway.audit import Found, Item, SourceFile, Support, Target
from gateway.catalog import CatalogEntry

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
        if item.kind in ("skill", "config", "secret"):
            return metadata(
                gateway_codes.RUNTIME_UNAVAILABLE,
                f"listed by `gateway inspect`; Nu {item.kind}s are not used yet",
            )
        return metadata(
            gateway_codes.RUNTIME_UNAVAILABLE,
            "Nu packages install and pass the gates; their code does not run in the gateway yet",
        )

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
