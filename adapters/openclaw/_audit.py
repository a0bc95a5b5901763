"""What OpenClaw accepts, and what the gateway's OpenClaw host does: the audit knowledge of
this adapter.

Sources: ``openclaw-upstream.md`` for the ``openclaw`` column (OpenClaw 2026.9.6: the
version timeline, §0; ``contracts.tools``, §1.2 and §3; the 42-hook catalogue, §5.2; slots,
§6.3; entries of managed installs, §1.1), and ``docs/openclaw.md`` for the ``gateway``
column. The tables of what that host offers (hooks, registrars, ``api.runtime``, reserved
commands) are ``_host_api``, kept equal to the sidecar's own by a test.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import call_sites, foreign, metadata, partial, runs, unsupported
from adapters.openclaw import _codes as codes
from adapters.openclaw._host_api import (
    ABSENT_IN,
    HOOKS,
    LEGACY,
    NEVER_EMITTED,
    RECORDED,
    RESERVED_COMMANDS,
    RUNTIME,
    RUNTIME_RUNS,
    UNDEFINED,
)
from adapters.openclaw._lines import (
    declared_floor,
    hook_catalog_for,
    legacy_hooks_removed,
    openclaw_host_lines,
    tool_contract_enforced,
)
from adapters.openclaw._semver import HOST_VERSION
from gateway.audit import (
    AUDIT_FOREIGN_PACKAGE,
    Evidence,
    Found,
    HostLine,
    Item,
    SourceFile,
    Support,
    Target,
)
from gateway.base import counted
from gateway.model import CatalogEntry

__all__ = ["OpenClawAudit"]

_CONCEPTS: Final = frozenset({
    "tool", "command", "hook", "skill", "channel", "llm_provider", "provider",
    "transcription_provider", "image_generation_provider", "web_search_provider", "mcp_server",
    "cli_command", "contract", "service", "gateway_method", "http_route", "memory",
    "context_engine", "config", "secret", "extension", "api",
})  # fmt: skip
_DECLARED_METADATA: Final = frozenset({
    "channel", "llm_provider", "provider", "transcription_provider", "image_generation_provider",
    "web_search_provider", "mcp_server", "cli_command", "contract", "skill",
})  # fmt: skip
_SDK_IMPORT = re.compile(r"""["'](?:@openclaw/plugin-sdk|openclaw/plugin-sdk)(/[\w./-]+)?["']""")


class OpenClawAudit:
    ecosystem = "openclaw"

    # ------------------------------------------------------------------ the openclaw column

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem == "claude":
            return _claude_bundle(item)
        if entry.ecosystem != "openclaw" and not _openclaw_wrapper(entry):
            return foreign(
                "openclaw", item, _CONCEPTS, "it loads plugins with openclaw.plugin.json"
            )
        if item.kind == "tool" and item.detail.get("api", "registerTool") == "registerTool":
            declared = entry.metadata.get("contracts_tools")
            if not isinstance(declared, list) or item.name not in declared:
                why = (
                    "declares no contracts.tools"
                    if not isinstance(declared, list)
                    else "does not list it in contracts.tools"
                )
                return unsupported(
                    codes.OPENCLAW_TOOL_CONTRACT,
                    f"OpenClaw >= 2026.5.2 rejects the tool: the manifest {why}",
                )
        if item.kind == "hook":
            return self._native_hook(item.name)
        if item.kind == "command" and item.detail.get("alias_only"):
            return metadata(
                codes.OPENCLAW_COMMAND_ALIAS, "commandAliases are diagnostics only in OpenClaw"
            )
        if item.kind == "command" and item.name.lower() in RESERVED_COMMANDS:
            return unsupported(
                codes.OPENCLAW_COMMAND_RESERVED, f"/{item.name} is a reserved OpenClaw command"
            )
        if item.kind == "extension" and _typescript_only(item.name):
            return partial(
                codes.OPENCLAW_ENTRY_TYPESCRIPT,
                "OpenClaw >= 2026.8 loads a TypeScript entry from local paths only; an npm install "
                "needs built JS",
            )
        if item.kind == "memory" and item.name == "memory slot":
            return partial(
                codes.OPENCLAW_MEMORY_SLOT,
                "loads only when plugins.slots.memory selects it (default memory-core)",
            )
        return runs(f"OpenClaw's own host ({HOST_VERSION})")

    @staticmethod
    def _native_hook(name: str) -> Support:
        if name in LEGACY:
            return unsupported(
                codes.OPENCLAW_LEGACY_API,
                f"{name!r} was removed in OpenClaw 2026.8; api.on ignores it",
            )
        spec = HOOKS.get(name)
        if spec is None:
            return unsupported(
                codes.OPENCLAW_HOOK_UNKNOWN, f"{name!r} is not an OpenClaw hook; api.on ignores it"
            )
        if spec[0]:
            return partial(
                codes.OPENCLAW_CONVERSATION_ACCESS,
                "a conversation hook: runs once "
                "plugins.entries.<id>.hooks.allowConversationAccess is set",
            )
        return runs(f"a typed hook of OpenClaw {HOST_VERSION}")

    # ------------------------------------------------------------------ the gateway column

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        api = str(item.detail.get("api") or "")
        if item.kind == "hook":
            return self._gateway_hook(entry, item.name)
        if item.kind == "tool":
            optional = item.name in (entry.metadata.get("optional_tools") or [])
            if optional:
                return partial(
                    codes.OPENCLAW_TOOL_OPTIONAL,
                    "an optional tool: offered once listed in $gateway.tools.allow",
                )
            declared = entry.metadata.get("contracts_tools")
            listed = isinstance(declared, list) and item.name in declared
            coded = item.detail.get("api", "registerTool") == "registerTool"
            if coded and not listed and tool_contract_enforced(entry.metadata):
                return unsupported(
                    codes.OPENCLAW_TOOL_UNDECLARED,
                    "refused as OpenClaw >= 2026.5.2 refuses it: not in the manifest's "
                    "contracts.tools",
                )
            return runs("projected as a tool; OpenClaw's execute(id, params, signal, onUpdate)")
        if item.kind == "command":
            if item.detail.get("alias_only"):
                return metadata(
                    codes.OPENCLAW_COMMAND_ALIAS, "an alias only: no command of that name runs"
                )
            if item.name.lower() in RESERVED_COMMANDS:
                return unsupported(
                    codes.OPENCLAW_COMMAND_RESERVED,
                    f"/{item.name} is reserved; skipped as OpenClaw does",
                )
            return runs("a slash command with OpenClaw's name rules")
        if item.kind in ("config", "secret"):
            what = (
                "validated against configSchema with defaults (`gateway config`)"
                if item.kind == "config"
                else "passed to the plugin's environment when set"
            )
            return runs(what)
        if item.kind == "extension":
            return runs("loaded by the Node sidecar's OpenClaw host")
        if item.kind == "memory" and item.name == "memory slot":
            return partial(
                codes.OPENCLAW_MEMORY_SLOT,
                "runs without being a selected memory slot; registerMemoryCapability is "
                "recorded only",
            )
        if api in RECORDED or api == "registerHook":
            return unsupported(
                codes.OPENCLAW_UNSUPPORTED_API,
                f"{api}: recorded, nothing runs in a headless gateway",
            )
        if api in UNDEFINED:
            return unsupported(
                codes.OPENCLAW_UNSUPPORTED_API,
                f"{api} is left undefined so the plugin can feature-detect it",
            )
        if api in ("registerTool", "registerCommand"):
            return runs(f"{api} with a name the code computes: runs once registered")
        if api.startswith("runtime."):
            if api in RUNTIME_RUNS:
                return runs("runs on the host (commands under Gateway.exec_policy)")
            return unsupported(codes.OPENCLAW_UNSUPPORTED_API, f"api.{api} is not offered headless")
        if item.kind in _DECLARED_METADATA:
            return metadata(
                codes.OPENCLAW_CONTRIBUTION_METADATA_ONLY,
                "declared in the manifest; listed, nothing of it runs",
            )
        return unsupported(
            codes.OPENCLAW_UNSUPPORTED_API,
            f"{api or item.name} is not offered by the gateway's OpenClaw host",
        )

    @staticmethod
    def _gateway_hook(entry: CatalogEntry, name: str) -> Support:
        release = hook_catalog_for(entry.metadata)
        if name in ABSENT_IN.get(release, ()):
            return unsupported(
                codes.OPENCLAW_HOOK_NOT_IN_VERSION,
                f"{name!r} is not a typed hook of OpenClaw {release}, which the plugin is "
                f"loaded as (it declares OpenClaw {declared_floor(entry.metadata)}); "
                "ignored as that OpenClaw does",
            )
        hook = LEGACY.get(name, name)
        if hook != name and legacy_hooks_removed(entry.metadata):
            return unsupported(
                codes.OPENCLAW_LEGACY_HOOK_REMOVED,
                f"{name!r} was removed in OpenClaw 2026.8, which the plugin is loaded as; "
                f"ignored as OpenClaw does (use {hook!r})",
            )
        spec = HOOKS.get(hook)
        if spec is None:
            return unsupported(
                codes.OPENCLAW_HOOK_UNKNOWN,
                f"{name!r} is not an OpenClaw hook; ignored as OpenClaw does",
            )
        conv, event, why = spec
        if hook in NEVER_EMITTED:
            return unsupported(
                codes.OPENCLAW_HOOK_NEVER_EMITTED,
                f"registered as OpenClaw registers it, never called: {why}",
            )
        if event is None:
            return unsupported(codes.OPENCLAW_HOOK_UNMAPPED, f"never runs: {why}")
        where = (
            "at the sidecar's start and stop" if event == "host" else f"at the canonical {event}"
        )
        legacy = f" (legacy {name}, run as {hook})" if hook != name else ""
        if conv:
            return partial(
                codes.OPENCLAW_CONVERSATION_ACCESS,
                f"runs {where}{legacy} once granted: "
                f"gateway permissions {entry.id} conversation_access",
            )
        return runs(f"runs {where}{legacy}, with OpenClaw's merge rules")

    # ------------------------------------------------------------------ the code

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        names = frozenset(HOOKS) | frozenset(LEGACY)
        found = call_sites(
            sources, {"on": "hook"}, "openclaw", named_by={"on": "string"}, names=names
        )
        found += call_sites(
            sources,
            {"registerTool": "tool", "registerCommand": "command", "registerHook": "api"},
            "openclaw",
            named_by={"registerTool": "object", "registerCommand": "object"},
        )
        found += call_sites(
            sources,
            {**RECORDED, **UNDEFINED},
            "openclaw",
            named_by={
                "registerGatewayMethod": "string",
                "registerService": "object",
                "registerChannel": "object",
            },
        )
        for api in RUNTIME:
            _, group, method = api.split(".")
            found += call_sites(
                sources,
                {method: "api"},
                "openclaw",
                receiver=rf"runtime\.{group}",
                prefix=f"runtime.{group}.",
            )
        if "memory" in (entry.metadata.get("kind") or []):
            slot = Item("memory", "memory slot", "openclaw", {"kind": "memory"})
            found.append(Found(slot, "openclaw.plugin.json", None, Evidence.DECLARED))
        return found

    def host_lines(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[HostLine]:
        """OpenClaw 2026.11, 2026.10 and 2026.9.36 LTS: which the plugin works with
        (``_lines``: its declared host range, the compat registry's removals)."""
        if entry.ecosystem != "openclaw":
            return []
        return openclaw_host_lines(entry.metadata, sources)

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        found = []
        plugin_api = entry.metadata.get("plugin_api")
        if isinstance(plugin_api, str):
            found.append(
                Target(
                    "openclaw compat.pluginApi",
                    plugin_api,
                    f"checked against OpenClaw {HOST_VERSION}",
                )
            )
        install = entry.metadata.get("install")
        if isinstance(install, dict) and isinstance(install.get("minHostVersion"), str):
            found.append(Target("openclaw install.minHostVersion", install["minHostVersion"]))
        if isinstance(entry.metadata.get("min_gateway_version"), str):
            found.append(
                Target("openclaw compat.minGatewayVersion", entry.metadata["min_gateway_version"])
            )
        if isinstance(entry.metadata.get("openclaw_peer"), str):
            found.append(Target("openclaw peerDependencies", entry.metadata["openclaw_peer"]))
        if entry.metadata.get("host_rules") == "2026.10":
            found.append(
                Target(
                    "openclaw host rules",
                    "2026.10+",
                    "declares a newer OpenClaw; the SDK subpaths it removed are refused, "
                    "see docs/openclaw.md",
                )
            )
        subpaths = sorted(
            {m.group(1) or "" for s in sources if s.reachable for m in _SDK_IMPORT.finditer(s.text)}
        )
        if "" in subpaths:
            found.append(
                Target(
                    "openclaw plugin-sdk",
                    "root barrel",
                    "removed from OpenClaw's exports in 2026.8",
                )
            )
        named = [p.lstrip("/") for p in subpaths if p]
        if named:
            found.append(
                Target(
                    "openclaw plugin-sdk",
                    ", ".join(named[:12]) + (" …" if len(named) > 12 else ""),
                    counted(len(named), "subpath"),
                )
            )
        if entry.metadata.get("kind"):
            found.append(
                Target("openclaw kind", ", ".join(entry.metadata["kind"]), "an exclusive slot")
            )
        return found


def _openclaw_wrapper(entry: CatalogEntry) -> bool:
    return entry.ecosystem == "nanobot" and entry.metadata.get("nanobot_runtime") == "openclaw"


def _typescript_only(path: str) -> bool:
    return path.endswith((".ts", ".mts", ".cts", ".tsx"))


def _claude_bundle(item: Item) -> Support:
    """OpenClaw installs Claude Code plugins as bundles (the pinned 2026.9.6:
    ``bundle-manifest``, ``bundle-commands``, ``bundle-mcp``; measured against it by the
    fidelity harness's ``claude_host.mjs``): commands, skills and stdio MCP servers, and the
    hooks only recorded as a capability."""
    if item.kind in ("prompt", "command"):
        return runs("a bundle command (OpenClaw's reader of Claude bundles)")
    if item.kind == "skill":
        return runs("a skill of the bundle's skill roots")
    if item.kind == "mcp_server":
        if item.detail.get("remote"):
            return partial(
                adapters_codes.LISTED_ONLY,
                "a remote server of the bundle's MCP config; not checked",
            )
        return runs("a bundle MCP server, started for agent runs (bundle-mcp)")
    if item.kind == "hook":
        return metadata(
            adapters_codes.LISTED_ONLY,
            "recorded as the bundle's hooks capability; OpenClaw runs no hooks.json command",
        )
    return unsupported(
        AUDIT_FOREIGN_PACKAGE, f"OpenClaw's Claude bundles have no {item.kind} support"
    )
