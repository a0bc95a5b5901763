"""What nanobot accepts, and what the gateway does with nanobot packages: the audit
knowledge of this adapter.

Sources: the nanobot document (``004_…``): the manifest's kinds, the v1 Python API
(``register_tool``, ``register_command``, ``register_hook_factory``), discovery of Pi and
OpenClaw packages by keyword, and its compatibility matrix — for the ``nanobot`` column;
``docs/nanobot.md`` for the ``gateway`` column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import (
    call_sites,
    foreign,
    metadata,
    not_applicable,
    partial,
    runs,
    unsupported,
)
from adapters.nanobot import _codes as codes
from gateway.audit import Found, Item, SourceFile, Status, Support, Target
from gateway.model import CatalogEntry

__all__ = ["NanobotAudit"]

_EXECUTABLE: Final = frozenset({"tool", "command", "hook"})
_CONCEPTS: Final = frozenset({
    "tool", "command", "hook", "skill", "channel", "llm_provider", "transcription_provider",
    "image_generation_provider", "web_search_provider", "mcp_server", "webui", "provider",
    "extension", "api", "config", "secret",
})  # fmt: skip
# The compatibility matrix, per item kind: (Pi, OpenClaw) -> status, code, why.
_PROVIDER_CONTRACTS: Final = frozenset(
    {"transcription_provider", "image_generation_provider", "web_search_provider"}
)
_UNSUPPORTED_API: Final = (
    "session",
    "Session",
    "Entry",
    "Renderer",
    "Shortcut",
    "ui.",
    "Model",
    "Thinking",
    "Tree",
    "fork",
    "Label",
)


class NanobotAudit:
    ecosystem = "nanobot"

    # ------------------------------------------------------------------ the nanobot column

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem == "nanobot":
            return self._native(entry, item)
        if entry.ecosystem == "agent-plugins":
            return _agent_plugin(item)
        if entry.ecosystem not in ("pi", "openclaw"):
            return foreign(
                "nanobot",
                item,
                _CONCEPTS,
                "it loads nanobot.extension.json, Pi and OpenClaw packages and Agent Plugins",
            )
        missing = _not_discoverable(entry)
        if missing:
            return unsupported(codes.NANOBOT_HOST_NOT_DISCOVERABLE, missing)
        return self._matrix(entry.ecosystem, item)

    @staticmethod
    def _native(entry: CatalogEntry, item: Item) -> Support:
        runtime = entry.metadata.get("nanobot_runtime")
        if runtime in ("pi", "openclaw"):
            return NanobotAudit._matrix(str(runtime), item)
        if runtime == "declarative" and item.kind != "config":
            return metadata(
                codes.NANOBOT_CONTRIBUTION_METADATA_ONLY,
                "a declarative package: catalog ownership only",
            )
        if item.detail.get("gateway_only"):
            return unsupported(
                codes.NANOBOT_GATEWAY_ONLY_API,
                f"{item.name}: nanobot's API has no such argument or attribute",
            )
        if item.kind in _EXECUTABLE or item.kind in ("extension", "secret", "config", "api"):
            return runs(
                "nanobot's v1 Python API (register_tool, register_command, register_hook_factory)"
            )
        return metadata(
            codes.NANOBOT_CONTRIBUTION_METADATA_ONLY,
            "the manifest declares ownership; the v1 Python API registers only tools, commands "
            "and hooks",
        )

    @staticmethod
    def _matrix(ecosystem: str, item: Item) -> Support:
        pi = ecosystem == "pi"
        kind = item.kind
        if kind in ("tool", "command", "extension"):
            return runs(f"executable through nanobot's {'Pi' if pi else 'OpenClaw'} sidecar")
        if kind == "hook":
            return partial(
                codes.NANOBOT_HOST_OBSERVE_ONLY,
                "observation only: receives serialized run and tool events",
            )
        if kind in ("llm_provider", "provider"):
            return metadata(
                codes.NANOBOT_CONTRIBUTION_METADATA_ONLY,
                "provider registration: visible in the catalog only",
            )
        if kind in _PROVIDER_CONTRACTS | {"skill", "channel"}:
            if pi:
                return Support(
                    Status.NOT_APPLICABLE,
                    adapters_codes.NOT_APPLICABLE.code,
                    "not applicable to Pi packages in nanobot's matrix",
                )
            return metadata(
                codes.NANOBOT_CONTRIBUTION_METADATA_ONLY,
                "visible in the catalog; not projected into nanobot's registries",
            )
        if kind in ("renderer", "shortcut"):
            return unsupported(
                codes.NANOBOT_HOST_UNSUPPORTED,
                "terminal UI, widgets, renderers and shortcuts are unsupported",
            )
        if kind == "api" and any(word in item.name for word in _UNSUPPORTED_API):
            return unsupported(
                codes.NANOBOT_HOST_UNSUPPORTED,
                "session trees, TUI and model control are unsupported in nanobot's matrix",
            )
        return unsupported(
            codes.NANOBOT_HOST_UNSUPPORTED,
            "arbitrary upstream host services are unsupported (reported as diagnostics)",
        )

    # ------------------------------------------------------------------ the gateway column

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        runtime = entry.metadata.get("nanobot_runtime")
        if runtime == "declarative":
            return metadata(
                codes.NANOBOT_CONTRIBUTION_METADATA_ONLY,
                "a declarative package: listed, nothing runs",
            )
        if item.kind in ("tool", "command"):
            where = {
                "python": "the Python sidecar",
                "pi": "the Pi host",
                "openclaw": "the OpenClaw host",
            }.get(str(runtime), "its sidecar")
            return runs(f"runs in {where}; the manifest's declaration is enforced")
        if item.kind == "hook":
            return runs(
                "hook factories run at the canonical events (docs/nanobot.md, the mapping table)"
            )
        if item.kind in ("extension", "config", "secret"):
            return runs(
                {
                    "config": "api.config from `gateway config`",
                    "secret": "passed once granted (env:NAME) or stored (gateway secret set)",
                }.get(item.kind, "imported in the sidecar")
            )
        if item.kind == "api":
            if item.detail.get("gateway_only"):
                return runs("an addition of the gateway's nanobot API (docs/nanobot.md)")
            return runs("part of the v1 Python API")
        return metadata(
            codes.NANOBOT_CONTRIBUTION_METADATA_ONLY,
            "declared in the manifest; listed, nothing of it runs",
        )

    # ------------------------------------------------------------------ the code

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        if entry.metadata.get("nanobot_runtime") != "python":
            return []
        found = call_sites(
            sources,
            {"register_tool": "api", "register_command": "command", "register_hook_factory": "api"},
            "nanobot",
            named_by={"register_command": "string"},
        )
        return found + _gateway_only_calls(sources)

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        version = entry.metadata.get("api_version")
        runtime = entry.metadata.get("nanobot_runtime")
        if runtime is None:
            return []
        return [
            Target(
                "nanobot apiVersion",
                str(version if version is not None else 1),
                f"runtime {runtime}",
            )
        ]


def _not_discoverable(entry: CatalogEntry) -> str | None:
    """Why nanobot would not take ``entry`` as a Pi or OpenClaw package, or None."""
    try:
        data = json.loads((Path(entry.root) / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        data = {}
    data = data if isinstance(data, dict) else {}
    found = data.get("keywords")
    keywords: list[object] = found if isinstance(found, list) else []
    if entry.ecosystem == "pi":
        block = data.get("pi")
        if "pi-package" in keywords and isinstance(block, dict) and block.get("extensions"):
            return None
        return "nanobot takes a Pi package only with the pi-package keyword and pi.extensions"
    block = data.get("openclaw")
    has_entries = isinstance(block, dict) and (
        block.get("extensions") or block.get("runtimeExtensions")
    )
    if "openclaw-plugin" in keywords and has_entries:
        return None
    return (
        "nanobot takes an OpenClaw plugin only with the openclaw-plugin keyword and "
        "openclaw.extensions"
    )


# The gateway's additions to nanobot's ``api`` (docs/nanobot.md): fine in the gateway, an
# error in nanobot, so the audit names each use.
_GATEWAY_ONLY = re.compile(
    r"(?<![\w$])\w+\s*\.\s*(?:register_hook_factory\s*\([^()]*(?:\([^()]*\)[^()]*)*"
    r"\bname\s*=|(?:config|data_dir|logger|workspace|secret)\b(?!\s*\())"
)


def _gateway_only_calls(sources: Sequence[SourceFile]) -> list[Found]:
    found: list[Found] = []
    for source in sources:
        if not source.reachable:
            continue
        for match in _GATEWAY_ONLY.finditer(source.text):
            text = match.group(0)
            if not re.match(r"api\s*\.", text):
                continue
            name = (
                "register_hook_factory(name=)"
                if "register_hook_factory" in text
                else "api." + text.rsplit(".", 1)[1].strip()
            )
            item = Item("api", name, "nanobot", {"api": name, "gateway_only": True})
            found.append(Found(item, source.path, source.line_of(match.start())))
    return found


def _agent_plugin(item: Item) -> Support:
    """nanobot 0.3 reads Agent Plugins 1.0 (``nanobot/agent/plugins.py``): an enabled
    plugin's skills, and its stdio MCP servers; a remote server entry it skips."""
    if item.kind == "skill":
        return runs("an enabled Agent Plugin's skills are offered to the agent")
    if item.kind == "mcp_server":
        if item.detail.get("transport") not in (None, "stdio"):
            return unsupported(
                codes.AGENT_PLUGINS_REMOTE_SERVER,
                "nanobot 0.3 starts an Agent Plugin's stdio servers only; remote ones are skipped",
            )
        return runs("started as an MCP server, its tools named mcp_<server>_<tool>")
    if item.kind == "tool":
        return runs("an MCP tool (or resource) of the plugin's server, under the same name")
    if item.kind == "command":
        return runs("an MCP prompt: nanobot offers it as a tool of the same name")
    return not_applicable("nanobot", item.kind)
