"""OpenClaw's discovery roots as a source of plugins (openclaw-upstream.md §6.1):
``<workspace>/.openclaw/extensions`` (only when the workspace is trusted) and
``~/.openclaw/extensions``, one plugin per folder (loose top-level files are ignored, as
OpenClaw's auto-discovered roots ignore them).

A plugin id already provided by an installed package stays with the installed one (a
tracked install outranks the roots), and the workspace root outranks the user's; every
skipped copy is an ``openclaw.plugin_id_conflict``. Each plugin runs in a sidecar of its
own, as ``openclaw:<plugin id>`` — its sandbox, data folder, private ``HOME`` and state folder
(its config: ``gateway config openclaw:<plugin id> KEY VALUE``; its grants:
``gateway permissions openclaw:<plugin id> …``). Discovered plugins pass no package gates
(placing them there is the consent; the workspace root still needs workspace trust).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from adapters._sidecar import plan_sidecar, request_timeout
from adapters.openclaw import _codes as codes
from adapters.openclaw._inspect import inspect_plugin, is_plugin
from adapters.openclaw._launch import (
    MIN_NODE,
    PRIVACY_ENV,
    TIMEOUT_VARIABLE,
    _granted,
    _manifest_id,
    missing_required,
    openclaw_package_spec,
    plugin_dirs,
)
from adapters.openclaw._roots import plugin_roots
from gateway.base import Diagnostic
from gateway.model import CatalogEntry, DiscoveredLaunch
from gateway.packages import PackageConfigError, config_path, read_package_config
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = ["UNTRUSTED_NAME", "discover", "find_plugins", "plugin_roots"]

UNTRUSTED_NAME = "openclaw:project"
"""Who a report of the skipped plugins of an untrusted workspace is about."""


def find_plugins(directory: Path) -> list[Path]:
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return []
    return [
        child
        for child in children
        if child.is_dir()
        and not child.name.startswith(".")
        and child.name != "node_modules"
        and is_plugin(child)
    ]


def _installed_ids(home: Path) -> dict[str, str]:
    """plugin id -> the installed package providing it."""
    if not (home / STATE_FILE).exists():
        return {}
    try:
        with StateStore.open(home) as store:
            packages = [p for p in store.list_packages() if p.record.ecosystem == "openclaw"]
    except StoreError:
        return {}
    found: dict[str, str] = {}
    for package in packages:
        plugin_id = _manifest_id(package.record.path)
        if plugin_id:
            found.setdefault(plugin_id, package.id)
    return found


def _conflict(plugin_id: str, root: Path, owner: str) -> Diagnostic:
    return codes.OPENCLAW_PLUGIN_ID_CONFLICT(
        f"{root}: plugin id {plugin_id!r} is already provided by {owner}; this copy is not loaded",
        package=f"openclaw:{plugin_id}",
    )


def discover(workspace: Path, user_home: Path, trusted: bool, home: Path) -> list[DiscoveredLaunch]:
    """Every discovered OpenClaw plugin, each its own sidecar launch (none found → [])."""
    installed: dict[str, str] | None = None  # read once a plugin is found (it costs a load)
    taken: dict[str, str] = {}
    launches: list[DiscoveredLaunch] = []
    found: list[Diagnostic] = []
    timeout = request_timeout(TIMEOUT_VARIABLE)
    for directory in plugin_roots(workspace, user_home, trusted):
        for root in find_plugins(directory):
            entry = inspect_plugin(root)
            plugin_id = entry.metadata.get("plugin_id") or entry.id
            installed = _installed_ids(home) if installed is None else installed
            owner = installed.get(plugin_id) or taken.get(plugin_id)
            if owner is not None:
                found.append(_conflict(plugin_id, root, owner))
                continue
            name = f"openclaw:{plugin_id}"
            own: list[Diagnostic] = []
            spec = _spec(replace(entry, id=name), home, own)
            if spec is None:
                found += own
                continue
            taken[plugin_id] = str(root)
            private_home, state = plugin_dirs(home, name)
            for folder in (private_home, state):  # a sandbox rule needs it there
                folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            env = {"HOME": str(private_home), "OPENCLAW_STATE_DIR": str(state), **PRIVACY_ENV}
            # As an installed plugin's: its config readable, its private folders writable.
            launch = plan_sidecar(
                [spec], env, timeout, MIN_NODE,
                reads=[config_path(home, name)], writes=[private_home, state],
            )  # fmt: skip
            launches.append(DiscoveredLaunch(name, root, launch, own))
    untrusted = workspace / ".openclaw" / "extensions"
    if not trusted and find_plugins(untrusted):
        found.append(
            codes.OPENCLAW_PROJECT_PLUGINS_UNTRUSTED(
                f"{untrusted}: OpenClaw plugins not loaded, the workspace is not trusted",
                hint=f"gateway trust {workspace}",
            )
        )
    if found:
        launches.append(DiscoveredLaunch(UNTRUSTED_NAME, untrusted, None, found))
    return launches


def _spec(entry: CatalogEntry, home: Path, found: list[Diagnostic]) -> dict | None:
    """The sidecar spec of one discovered plugin, or None (with why in ``found``)."""
    found.extend(d for d in entry.diagnostics if d.severity.value != "info")
    if not entry.entries or not entry.ok:
        return None
    try:
        config = read_package_config(home, entry.id)
    except PackageConfigError as error:
        found.append(codes.OPENCLAW_CONFIG_INVALID(f"{entry.id}: {error}", package=entry.id))
        return None
    missing = missing_required(entry, config)
    for name in missing:
        found.append(
            codes.OPENCLAW_CONFIG_REQUIRED(
                f"{entry.id}: config field {name!r} is required and has no value; not loaded",
                package=entry.id,
                contribution=name,
                hint=f"gateway config {entry.id} {name} VALUE",
            )
        )
    return (
        None
        if missing
        else openclaw_package_spec(entry, home, _granted(home, entry.id, discovered=True))
    )
