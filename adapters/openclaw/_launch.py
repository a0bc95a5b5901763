"""How an OpenClaw plugin runs: the OpenClaw host of the Node sidecar (``sidecars/``).

``plan_openclaw(entry, home)`` turns a catalog entry into a launch, checking first what
OpenClaw checks before ``register``: another installed package with the same plugin id
(``openclaw.plugin_id_conflict``), a config file that cannot be read, a field the config
schema requires with no value (``openclaw.config_required``, naming the ``gateway config``
command that sets it). The plugin then runs with its config from
``GATEWAY_HOME/config/<id>.json``, the ``conversation_access`` grant if the user gave it,
and a private ``HOME`` and ``OPENCLAW_STATE_DIR`` under ``GATEWAY_HOME/openclaw/<id>/``, so a
plugin that writes ``~/.openclaw/openclaw.json`` never touches the user's. nanobot packages
with ``runtime: openclaw`` run through the same plan.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from adapters._precompile import compile_cache
from adapters._sidecar import plan_sidecar, request_timeout
from adapters.openclaw import _codes as codes
from adapters.openclaw._inspect import CONVERSATION_ACCESS
from adapters.openclaw._lines import (
    PINNED_HOOK_CATALOG,
    declared_floor,
    hook_catalog_for,
    legacy_hooks_removed,
    tool_contract_enforced,
    withdrawn_for,
)
from adapters.openclaw._manifest import PLUGIN_JSON, loads_json5
from gateway.base import Diagnostic, PathRefused, encode_name, safe_join
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec
from gateway.packages import (
    PackageConfigError,
    config_path,
    package_settings,
    read_package_config,
)
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = [
    "MIN_NODE",
    "PRIVACY_ENV",
    "TIMEOUT_VARIABLE",
    "missing_required",
    "openclaw_package_spec",
    "plan_openclaw",
    "plugin_dirs",
]

MIN_NODE: Final = (24, 16, 0)
"""The pinned ``openclaw`` package's ``engines.node`` floor."""
TIMEOUT_VARIABLE: Final = "GATEWAY_OPENCLAW_TIMEOUT"
"""Per-request seconds for OpenClaw plugins (default 60)."""
PRIVACY_ENV: Final = {"DO_NOT_TRACK": "1", "MEM0_TELEMETRY": "false"}
"""Telemetry off: the common opt-out, and the switch of plugins known to phone home by
default (@mem0/openclaw-mem0 sends PostHog events unless MEM0_TELEMETRY is false)."""


def plugin_dirs(home: Path, package_id: str) -> tuple[Path, Path]:
    """(private HOME, OPENCLAW_STATE_DIR) of a plugin, under ``GATEWAY_HOME/openclaw``."""
    # The folder a plugin has kept its name; an id such as ".." (a plugin names itself) or
    # one too long for a file name is encoded instead.
    folder = encode_name(re.sub(r"[^A-Za-z0-9._@-]", "+", package_id), portable=False)
    base = safe_join(home / "openclaw", folder, portable=False)
    return base / "home", base / "state"


def _plugin_id(entry: CatalogEntry) -> str:
    value = entry.metadata.get("plugin_id")
    return value if isinstance(value, str) and value else entry.id


def _granted(home: Path, package_id: str, *, discovered: bool = False) -> frozenset[str]:
    """What the user granted an installed package, or a discovered plugin by its id."""
    if not (home / STATE_FILE).exists():
        return frozenset()
    try:
        with StateStore.open(home) as store:
            if discovered:
                return store.extension_granted(package_id)
            return store.granted(package_id)
    except (StoreError, KeyError):
        return frozenset()


def _conflict(entry: CatalogEntry, home: Path) -> str | None:
    """The package installed before this one that has the same plugin id, if any."""
    if entry.ecosystem != "openclaw" or not (home / STATE_FILE).exists():
        return None
    plugin_id = _plugin_id(entry)
    try:
        with StateStore.open(home) as store:
            packages = store.list_packages()
    except StoreError:
        return None
    for other in sorted(packages, key=lambda p: (p.record.installed_at, p.id)):
        if other.id == entry.id:
            break  # only a package installed earlier keeps the id
        if other.record.ecosystem == "openclaw" and _manifest_id(other.record.path) == plugin_id:
            return other.id
    return None


def _manifest_id(root: Path) -> str | None:
    try:
        data = loads_json5((root / PLUGIN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    value = data.get("id") if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) else None


def missing_required(entry: CatalogEntry, config: dict[str, Any]) -> list[str]:
    """Fields the config schema requires that ``config`` (the package's own part) lacks."""
    own, _ = package_settings(config)
    schema = entry.metadata.get("config_schema")
    required = schema.get("required") if isinstance(schema, dict) else None
    return [k for k in required if isinstance(k, str) and k not in own] if required else []


def _aliases(entry: CatalogEntry) -> list[dict[str, Any]]:
    return [
        {"name": c.name, "cliCommand": c.detail.get("cliCommand")}
        for c in entry.contributions
        if c.kind == "command" and c.detail.get("alias_only")
    ]


def _contract(entry: CatalogEntry) -> list[str] | None:
    if entry.ecosystem == "openclaw":
        tools = entry.metadata.get("contracts_tools")
        return list(tools) if isinstance(tools, list) else None
    # nanobot declares its tools in its own manifest, and the gateway enforces them.
    return [c.name for c in entry.contributions if c.kind == "tool"]


def _host_rules(entry: CatalogEntry) -> str:
    """``2026.10``: the plugin declares a newer OpenClaw, whose rules apply (docs/openclaw.md)."""
    rules = entry.metadata.get("host_rules")
    return rules if entry.ecosystem == "openclaw" and isinstance(rules, str) else "2026.9"


def _tool_contract(entry: CatalogEntry) -> str:
    """``refuse``: a tool outside ``contracts.tools`` is not registered, as the OpenClaw the
    plugin is loaded as refuses it (2026.5.2 and later, ``_lines``); ``warn`` before that."""
    if entry.ecosystem != "openclaw":
        return "warn"
    return "refuse" if tool_contract_enforced(entry.metadata) else "warn"


def _legacy_hooks(entry: CatalogEntry) -> str:
    """``ignore``: the hook names OpenClaw 2026.8 removed are unknown hooks, as in the OpenClaw
    the plugin is loaded as; ``alias`` (they run as their replacements) before that."""
    if entry.ecosystem == "openclaw" and legacy_hooks_removed(entry.metadata):
        return "ignore"
    return "alias"


def _hook_catalog(entry: CatalogEntry) -> dict[str, str | None]:
    """Whose typed hook names apply: the OpenClaw release of the plugin's declared band
    (``_lines.hook_catalog_for``; the names are the sidecar's, ``hooks.mjs``), and the floor
    it declares (None: nothing), for the diagnostic of a hook that release does not have."""
    if entry.ecosystem != "openclaw":
        return {"release": PINNED_HOOK_CATALOG, "declared": None}
    return {"release": hook_catalog_for(entry.metadata), "declared": declared_floor(entry.metadata)}


def _withdrawn(entry: CatalogEntry) -> list[tuple[str, str]]:
    """SDK subpaths the OpenClaw the plugin declares no longer has (``_lines``)."""
    return withdrawn_for(entry.metadata) if entry.ecosystem == "openclaw" else []


def _loader(entry: CatalogEntry) -> str:
    """How the sidecar loads the entry: as the OpenClaw the plugin declares (``_lines``)."""
    loader = entry.metadata.get("loader")
    return loader if entry.ecosystem == "openclaw" and isinstance(loader, str) else "native"


def openclaw_package_spec(
    entry: CatalogEntry, home: Path, granted: frozenset[str]
) -> dict[str, Any]:
    """The package as the sidecar's OpenClaw host loads it (docs/openclaw.md). The config
    travels as its file's path, not its content: it may hold keys, and argv is public."""
    root = Path(entry.root)
    _, state = plugin_dirs(home, entry.id)
    schema = entry.metadata.get("config_schema")
    return {
        "id": entry.id,
        "host": "openclaw",
        "root": str(root.resolve()),
        "entries": [str((root / rel).resolve()) for rel in entry.entries],
        "pluginId": _plugin_id(entry),
        "name": entry.name,
        "version": entry.version,
        "description": entry.description,
        "configFile": str(config_path(home, entry.id)),
        "configSchema": schema if isinstance(schema, dict) else None,
        "conversationAccess": CONVERSATION_ACCESS in granted,
        "contractsTools": _contract(entry),
        "hostRules": _host_rules(entry),
        "toolContract": _tool_contract(entry),
        "legacyHooks": _legacy_hooks(entry),
        "hookCatalog": _hook_catalog(entry),
        "loader": _loader(entry),
        "removedSdk": [list(pair) for pair in _withdrawn(entry)],
        "optionalTools": list(entry.metadata.get("optional_tools") or []),
        "commandAliases": _aliases(entry),
        "stateDir": str(state),
    }


def _refuse(reason: str, *found: Diagnostic) -> LaunchRefusal:
    return LaunchRefusal(reason, diagnostics=list(found))


def _stored_secrets(home: Path, entry: CatalogEntry) -> dict[str, str]:
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError:
        return {}  # status shows them unset
    return {name: stored[name] for name in entry.secrets if stored.get(name)}


def plan_openclaw(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
    """One sidecar for one OpenClaw plugin (or nanobot ``runtime: openclaw`` package)."""
    package = entry.id
    if not entry.entries:
        return LaunchRefusal("no runtime entry to load (see the package's diagnostics)")
    other = _conflict(entry, home)
    if other is not None:
        why = f"plugin id {_plugin_id(entry)!r} is already provided by {other}"
        found = codes.OPENCLAW_PLUGIN_ID_CONFLICT(
            f"{package}: {why}; not started", package=package, hint=f"gateway uninstall {package}"
        )
        return _refuse(why, found)
    try:
        config = read_package_config(home, package)
    except PackageConfigError as error:
        found = codes.OPENCLAW_CONFIG_INVALID(f"{package}: {error}", package=package)
        return _refuse(f"its config cannot be read: {error}", found)
    missing = missing_required(entry, config)
    if missing:
        required = [
            codes.OPENCLAW_CONFIG_REQUIRED(
                f"{package}: config field {name!r} is required and has no value",
                package=package,
                contribution=name,
                hint=f"gateway config {package} {name} VALUE",
            )
            for name in missing
        ]
        return _refuse(f"required config {', '.join(missing)} not set", *required)
    try:
        private_home, state = plugin_dirs(home, package)
    except PathRefused as error:  # a symlink there leading out of GATEWAY_HOME/openclaw
        return _refuse(f"its private folder cannot be used: {error}")
    env = {
        "HOME": str(private_home),
        "OPENCLAW_STATE_DIR": str(state),
        **PRIVACY_ENV,
        # Its providers' variables: what the user stored for it (gateway secret set); the
        # user's own environment reaches it only as granted (env:NAME, added by the host).
        **_stored_secrets(home, entry),
    }
    spec = openclaw_package_spec(entry, home, _granted(home, package))
    spec["cache"] = str(compile_cache(home, package))  # jiti's, filled at install (_precompile)
    for folder in (private_home, state):
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # a sandbox rule needs it there
    return plan_sidecar(
        [spec],
        env,
        request_timeout(TIMEOUT_VARIABLE),
        MIN_NODE,
        reads=[config_path(home, package)],
        writes=[private_home, state],
    )
