"""``openclaw.plugin.json``: OpenClaw's native plugin manifest.

OpenClaw's own loader (``src/plugins/manifest.ts``) has two kinds of rule, kept here:
hard failures (file missing or unparseable, ``id`` missing or reserved, ``configSchema``
not an object, bad ``categories``, over 256 KiB, a hard link) make the plugin an error; any
other bad value is silently dropped, which the gateway reports as a warning. Unknown
top-level keys are ignored, as upstream does (real plugins ship undocumented ones). The file
is JSON5, as upstream parses it (comments, trailing commas, unquoted keys, single quotes,
hex numbers, …).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters._fields import Fields
from adapters._files import Inspection, jsonable
from adapters._markdown import skill_contribution, skill_files
from adapters.openclaw import _codes as codes
from gateway.base import lone_surrogate
from gateway.model import Contribution

__all__ = ["PLUGIN_JSON", "PluginManifest", "loads_json5", "read_plugin_manifest"]

PLUGIN_JSON: Final = "openclaw.plugin.json"
MAX_BYTES: Final = 262_144
KINDS: Final = ("memory", "context-engine")
CATEGORIES: Final = frozenset(
    {
        "channels",
        "models",
        "agent-runtimes",
        "memory",
        "context",
        "voice",
        "web",
        "media",
        "security",
        "integrations",
        "developer-tools",
        "infrastructure",
        "documents-files",
        "inbox-collaboration",
        "productivity",
        "scheduling",
        "finance-payments",
        "sales-marketing",
        "data-analytics",
        "agent-orchestration",
        "research",
        "other",
        "tools",
        "runtime",
        "gateway",
        "",
    }
)
# contracts keys with a nanobot contribution kind; other *Providers keys are "provider",
# anything else is kept as a "contract".
CONTRACT_KINDS: Final = {
    "tools": "tool",
    "realtimeTranscriptionProviders": "transcription_provider",
    "imageGenerationProviders": "image_generation_provider",
    "webSearchProviders": "web_search_provider",
}


@dataclass(slots=True)
class PluginManifest:
    id: str | None
    name: str | None = None
    description: str | None = None
    version: str | None = None
    contributions: list[Contribution] = field(default_factory=list)
    config_keys: list[str] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


_JSON5_ERROR = re.compile(r"^<string>:(\d+) (.*?)(?: at column (\d+))?$", re.DOTALL)


def loads_json5(text: str) -> Any:
    """JSON5 (OpenClaw's manifest format). Most manifests are plain JSON, which JSON5
    extends: the json module reads those, json5's parser (about 20 ms for a small file, and
    its import) only the others, and words their errors."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        import json5

        return json5.loads(text)


def _read_json5(inspection: Inspection) -> dict[str, Any] | None:
    text = inspection.read_text(PLUGIN_JSON)
    if text is None:
        return None
    try:
        data = loads_json5(text)
    except (ValueError, RecursionError) as error:
        found = _JSON5_ERROR.match(str(error))
        if found:
            line, problem, column = found.groups()
            where = f"line {line} column {column or 1}"
            inspection.add(
                adapters_codes.JSON_INVALID(f"{PLUGIN_JSON}: invalid JSON at {where}: {problem}")
            )
        else:
            detail = " ".join(str(error).split()) or "nested too deeply"
            inspection.add(adapters_codes.JSON_INVALID(f"{PLUGIN_JSON}: invalid JSON: {detail}"))
        return None
    if not isinstance(data, dict):
        inspection.add(adapters_codes.NOT_AN_OBJECT(f"{PLUGIN_JSON}: top level is not an object"))
        return None
    not_text = lone_surrogate(data)
    if not_text is not None:
        inspection.add(
            adapters_codes.JSON_INVALID(
                f"{PLUGIN_JSON}: a string is not text (a lone surrogate): “{not_text}”"
            )
        )
        return None
    return data


def read_plugin_manifest(inspection: Inspection) -> PluginManifest | None:
    try:
        info = os.stat(inspection.root / PLUGIN_JSON)
        size, links = info.st_size, info.st_nlink
    except (OSError, ValueError):
        size, links = 0, 1
    if size > MAX_BYTES:
        inspection.add(codes.OPENCLAW_MANIFEST_INVALID(f"{PLUGIN_JSON}: over {MAX_BYTES} bytes"))
        return None
    if links > 1:
        # OpenClaw rejects hard-linked manifests of non-bundled plugins.
        inspection.add(codes.OPENCLAW_MANIFEST_INVALID(f"{PLUGIN_JSON}: is a hard link"))
        return None
    data = _read_json5(inspection)
    if data is None:
        return None
    hard = Fields(inspection, codes.OPENCLAW_MANIFEST_INVALID, PLUGIN_JSON, data)
    soft = Fields(inspection, codes.OPENCLAW_VALUE_DROPPED, PLUGIN_JSON, data)
    plugin_id = hard.string("id", required=True)
    if plugin_id is not None and plugin_id.strip() == "node-mcp":
        hard.problem("id", "'node-mcp' is reserved", show=False)
        plugin_id = None
    schema = hard.mapping("configSchema", required=True)
    manifest = PluginManifest(
        id=plugin_id.strip() if plugin_id else None,
        name=soft.string("name"),
        description=soft.string("description", allow_empty=True),
        version=soft.string("version"),
    )
    manifest.metadata = {
        "plugin_id": manifest.id,
        "kind": _kind(soft, data),
        "categories": _categories(hard, data),
        "config_schema": jsonable(schema) if schema is not None else None,
        "valid": not hard.failed,
        **_runtime_facts(data),
    }
    if schema is not None and isinstance(schema.get("properties"), dict):
        manifest.config_keys = [str(key) for key in schema["properties"]]
    manifest.contributions = _contributions(inspection, soft, data)
    manifest.secrets = _secrets(soft, data)
    return manifest


def _runtime_facts(data: dict[str, Any]) -> dict[str, Any]:
    """What the sidecar's OpenClaw host checks at runtime: the declared tool contract (None
    when ``contracts.tools`` is absent; OpenClaw >= 2026.5 then rejects every tool), the
    tools ``toolMetadata`` marks optional, and the config keys ``uiHints`` marks sensitive.
    Bad values here were already reported (and dropped) with the contributions."""
    contracts = data.get("contracts")
    declared = contracts.get("tools") if isinstance(contracts, dict) else None
    tools = [t for t in declared if isinstance(t, str)] if isinstance(declared, list) else None
    metadata = data.get("toolMetadata")
    optional = [
        name
        for name, item in (metadata.items() if isinstance(metadata, dict) else ())
        if isinstance(item, dict) and item.get("optional") is True
    ]
    hints = data.get("uiHints")
    sensitive = [
        str(key)
        for key, hint in (hints.items() if isinstance(hints, dict) else ())
        if isinstance(hint, dict) and hint.get("sensitive") is True
    ]
    trusted = {
        key: [name for name in contracts[key] if isinstance(name, str)]
        for key in ("agentToolResultMiddleware", "trustedToolPolicies")
        if isinstance(contracts, dict) and isinstance(contracts.get(key), list)
    }
    return {
        "contracts_tools": tools,
        "optional_tools": optional,
        "sensitive_config": sensitive,
        "trusted_contracts": trusted,
    }


def _kind(soft: Fields, data: dict[str, Any]) -> list[str]:
    value = data.get("kind")
    if value is None:
        return []
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) and v in KINDS for v in values):
        soft.problem("kind", f"must be {' or '.join(KINDS)} or an array of them", value)
        return []
    return list(values)


def _categories(hard: Fields, data: dict[str, Any]) -> list[str]:
    if "categories" not in data:
        return []
    value = data["categories"]
    valid = (
        isinstance(value, list)
        and 1 <= len(value) <= 3
        and all(isinstance(v, str) and v in CATEGORIES for v in value)
        and len(set(value)) == len(value)
    )
    if not valid:
        hard.problem("categories", "must be 1-3 unique known category slugs", value)
        return []
    return list(value)


def _contributions(
    inspection: Inspection, soft: Fields, data: dict[str, Any]
) -> list[Contribution]:
    found: list[Contribution] = []
    channel_configs = data.get("channelConfigs")
    for name in soft.string_list("channels"):
        has_schema = isinstance(channel_configs, dict) and name in channel_configs
        found.append(Contribution("channel", name, detail={"config_schema": has_schema}))
    found += [Contribution("llm_provider", n) for n in soft.string_list("providers")]
    found += [
        Contribution("provider", n, detail={"contract": "cliBackends"})
        for n in soft.string_list("cliBackends")
    ]
    for index, raw in enumerate(soft.string_list("skills")):
        rel = inspection.resolve(raw, label=f"{PLUGIN_JSON} skills[{index}]")
        if rel is not None:
            paths = skill_files(inspection, rel)
            if not paths:
                inspection.add(
                    adapters_codes.ENTRY_NOT_FOUND(
                        f"{PLUGIN_JSON} skills[{index}]: no SKILL.md in {raw!r}"
                    )
                )
            found += [c for p in paths if (c := skill_contribution(inspection, p)) is not None]
    found += _contracts(soft, data)
    found += _named_items(soft, data, "commandAliases", "command")
    found += _named_items(soft, data, "cliCommands", "cli_command")
    servers = soft.mapping("mcpServers")
    found += [Contribution("mcp_server", str(name)) for name in servers or {}]
    return found


def _contracts(soft: Fields, data: dict[str, Any]) -> list[Contribution]:
    contracts = soft.mapping("contracts") or {}
    tool_metadata = data.get("toolMetadata")
    tool_metadata = tool_metadata if isinstance(tool_metadata, dict) else {}
    nested = Fields(soft.inspection, soft.code, f"{PLUGIN_JSON} contracts", contracts)
    found: list[Contribution] = []
    for key in contracts:
        kind = CONTRACT_KINDS.get(key) or ("provider" if key.endswith("Providers") else "contract")
        for name in nested.string_list(key):
            detail: dict[str, Any] = {"contract": key}
            if kind == "tool":
                # Checked by the sidecar against what registers (a diagnostic, not a
                # refusal: the lenient <= 2026.7 behaviour), so not enforced by the host.
                detail["advisory"] = True
            if kind == "tool" and name in tool_metadata:
                detail["tool_metadata"] = jsonable(tool_metadata[name])
            found.append(Contribution(kind, name, detail=detail))
    return found


def _named_items(soft: Fields, data: dict[str, Any], key: str, kind: str) -> list[Contribution]:
    """commandAliases / cliCommands: arrays of objects with a string name."""
    if key not in data:
        return []
    value = data[key]
    if not isinstance(value, list):
        soft.problem(key, "must be an array of objects", value)
        return []
    found: list[Contribution] = []
    for index, item in enumerate(value):
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name.strip():
            soft.problem(f"{key}[{index}]", "must be an object with a string name", item)
            continue
        description = item.get("description")
        detail = {k: jsonable(v) for k, v in item.items() if k not in ("name", "description")}
        if kind == "command":
            detail["alias_only"] = True  # upstream: diagnostics only, not executable
            detail["advisory"] = True
        found.append(
            Contribution(
                kind, name, description if isinstance(description, str) else "", detail=detail
            )
        )
    return found


def _secrets(soft: Fields, data: dict[str, Any]) -> list[str]:
    """Environment variables the plugin's providers authenticate with."""
    names: list[str] = []
    setup = data.get("setup")
    providers = setup.get("providers") if isinstance(setup, dict) else None
    for provider in providers if isinstance(providers, list) else []:
        env = provider.get("envVars") if isinstance(provider, dict) else None
        names += [v for v in env if isinstance(v, str)] if isinstance(env, list) else []
    legacy = data.get("providerAuthEnvVars")
    if isinstance(legacy, dict):
        for values in legacy.values():
            names += [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
    elif legacy is not None:
        soft.problem("providerAuthEnvVars", "must be an object of arrays", legacy)
    return list(dict.fromkeys(names))
