"""What a package contributes, and how that is known: seen in a throwaway load
(``--load``), recorded by its last start (the gateway's registration cache), or declared by
its manifest. Only the load runs anything."""

from __future__ import annotations

import json
from typing import Any

from gateway.base import GatewayConfig
from gateway.host import RegistrationCache, registration_key, start_inputs
from gateway.migrate._model import Observation, Package
from gateway.migrate._throwaway import Loaded
from gateway.model import CatalogEntry, LaunchSpec
from gateway.packages import evaluate_packages, load_adapters
from gateway.runtime import child_environment
from gateway.store import STATE_FILE, StoreError
from gateway.wire import RegisterMessage, ToolSpec

__all__ = ["declared", "observed", "recorded"]

_RUNTIME_ONLY = frozenset({"nimlet-process", "node-sidecar", "python-sidecar", "plugin-host"})


def observed(loaded: Loaded) -> Observation:
    return Observation(
        "observed",
        tools=[_tool(t) for t in loaded.tools],
        commands=[
            {"name": c["name"], "description": c.get("description", "")} for c in loaded.commands
        ],
        events=list(dict.fromkeys(h["event"] for h in loaded.hooks)),
        diagnostics=list(loaded.diagnostics),
    )


def declared(entry: CatalogEntry) -> Observation:
    """The manifest's tools, commands and hooks; complete only where the format lists them
    all (nanobot's), or where nothing runs (a package of skills and prompts)."""
    found = Observation(
        "declared",
        tools=[
            {"name": c.name, "description": c.description,
             "input_schema": c.detail.get("input_schema") or {"type": "object"},
             "capabilities": list(c.detail.get("capabilities") or [])}
            for c in entry.contributions if c.kind == "tool"
        ],
        commands=[{"name": c.name, "description": c.description}
                  for c in entry.contributions if c.kind == "command"],
        named_hooks=[c.name for c in entry.contributions if c.kind == "hook"],
    )  # fmt: skip
    found.complete = entry.enforce_declared or entry.runtime not in _RUNTIME_ONLY
    return found


def recorded(package: Package, config: GatewayConfig) -> Observation | None:
    """What an installed package registered when it last started in this gateway home, if
    the gateway's cache still holds it for exactly this content, launch and grants."""
    if not package.installed or not (config.home / STATE_FILE).exists():
        return None
    try:
        status = next(
            (s for s in evaluate_packages(config.home, load_adapters()) if s.id == package.id),
            None,
        )
    except StoreError:
        return None
    if status is None or not isinstance(status.runtime, LaunchSpec):
        return None
    spec, base = status.runtime, child_environment(config.passthrough_env)
    env = {k: v for k, v in spec.env.items() if base.get(k) != v}
    key = registration_key(spec.command, env, start_inputs(status, config.home))
    cached = RegistrationCache(config.home).load(status.id, key)
    if cached is None:
        return None
    return _from_register(cached.register, cached.tools)


def _from_register(register: RegisterMessage, tools: list[ToolSpec] | None) -> Observation:
    specs = tools if tools is not None else list(register.tools or [])
    return Observation(
        "recorded",
        tools=[_tool(json.loads(spec.model_dump_json())) for spec in specs],
        commands=[{"name": c.name, "description": c.description} for c in register.commands],
        events=list(register.events or []),
    )


def _tool(data: dict[str, Any]) -> dict[str, Any]:
    capabilities = data.get("capabilities")
    return {
        "name": data["name"],
        "description": data.get("description", ""),
        "input_schema": data.get("input_schema") or {"type": "object"},
        "capabilities": list(capabilities) if isinstance(capabilities, list) else None,
    }
