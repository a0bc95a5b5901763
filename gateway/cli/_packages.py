"""Package verbs: install, inspect, permissions, enable, disable, uninstall, status
(``install`` and ``uninstall`` in ``gateway.cli._install``). Each prints a readable
summary, or JSON with ``--json``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._output import print_diagnostics, print_json, summary, table
from gateway.cli._preferred import preference_json, preference_line, read_preference
from gateway.cli._refusal import print_each, refuse, refuse_unknown
from gateway.cli._trust import installed_ids
from gateway.host import describe_sandbox
from gateway.packages import (
    evaluate_packages,
    forget_registrations,
    load_adapters,
    observed_registration,
    recalled_denials,
    recorded_source,
)
from gateway.packages.environment import describe_environment
from gateway.store import StateStore, UnknownPackage

__all__ = ["refuse", "run_package_verb"]


def run_package_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    if args.verb in ("install", "uninstall"):
        # The installer (sources, npm, extraction) is loaded only by the verbs that use it.
        from gateway.cli import _install

        handler = _install.run_install if args.verb == "install" else _install.run_uninstall
    elif args.verb == "permissions":
        from gateway.cli._permissions import run_permissions

        handler = run_permissions
    else:
        handler = {
            "inspect": _inspect,
            "enable": _enable,
            "disable": _enable,
            "status": _status,
            "list": _installed,
            "group": _group,
            "ungroup": _group,
            "prefer": _prefer,
        }[args.verb]
    try:
        return handler(args, config)
    except UnknownPackage as error:
        return refuse_unknown(args, [error.package_id], given=1)


def _inspect(args: argparse.Namespace, config: GatewayConfig) -> int:
    target = args.target
    inspector = load_adapters().inspect
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            package = store.get_package(target)
        root = package.record.path
        if not root.is_dir():  # read as a folder, it would be an empty "unknown package"
            again = f"gateway install {recorded_source(package)}"
            return refuse(args, f"{target}: its installed files are missing at {root}; "
                                f"install it again: {again}")  # fmt: skip
    elif Path(target).is_dir():
        root = Path(target).resolve()
    else:
        what = "is neither an installed package id nor a folder"
        return refuse_unknown(args, [target], given=1, what=what)
    entry = inspector(root)
    data = entry.to_dict()
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            granted = store.granted(target)
        data["sandbox"] = describe_sandbox(entry, granted, config)
        observed = observed_registration(config.home, target)
        data["registered"] = observed.to_dict() if observed is not None else None
    if args.json:
        print_json(data)
        return 0
    named = " ".join(part for part in (data["id"], data["version"]) if part)  # no version: none
    print(f"{named} — {data['ecosystem']} package, runtime {data['runtime']}")
    if data.get("description"):
        print(f"  {data['description']}")
    print(f"  at {data['root']}")
    if "sandbox" in data:
        print(f"  sandbox: {data['sandbox']}")
    contributions = [
        (c["kind"], c["name"], summary(c.get("description", ""))) for c in data["contributions"]
    ]
    table("Contributions", ("kind", "name", "description"), contributions, sys.stdout)
    permissions = [(p["name"], p.get("reason", "")) for p in data["permissions"]]
    table("Permissions requested", ("permission", "reason"), permissions, sys.stdout)
    dependencies = [
        (d["kind"], d["name"], d.get("specifier", ""), "optional" if d["optional"] else "")
        for d in data["dependencies"]
    ]
    table("Dependencies", ("kind", "name", "specifier", ""), dependencies, sys.stdout)
    if "registered" in data:
        _print_registered(data["registered"])
    print_diagnostics(entry.diagnostics, sys.stdout)
    return 0


def _prefer(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``prefer ID…`` sets who wins name clashes, in that order, before install order;
    ``prefer --clear`` drops the preference; ``prefer`` alone shows it. An id that is
    neither an installed package's nor a discovered extension's (``pi:NAME``) refuses the
    whole line (with the names it probably meant)."""
    from gateway.host import discovered_owner

    ids = list(args.ids)
    if ids and args.clear:
        return refuse(args, "give package ids or --clear, not both", [])
    installed = installed_ids(config)
    extensions = [i for i in ids if i not in installed and discovered_owner(i) is not None]
    if ids:
        unknown = [i for i in ids if i not in installed and i not in extensions]
        if unknown:
            return refuse_unknown(args, unknown, given=len(ids))
    with StateStore.open(config.home) as store:
        if ids or args.clear:
            store.set_preferred(ids, extensions)
        preferred = store.preferred()
        installed = {package.record.id for package in store.list_packages()}
    shown = preference_json(preferred, installed)
    if args.json:
        print_json({"preferred": preferred, "installed": [p in installed for p in preferred],
                    "kinds": [item["kind"] for item in shown]})  # fmt: skip
    elif not preferred:
        print("no package is preferred: install order decides name clashes")
    else:
        for place, item in enumerate(shown, 1):
            note = "" if item["kind"] == "installed" else f"  ({item['kind']})"
            print(f"{place}. {item['id']}{note}")
        print("these win name clashes, in this order; then install order decides")
    return 0


def _print_registered(registered: dict[str, Any] | None) -> None:
    """What an installed package registered at its last start (the registration cache)."""
    if registered is None:
        print("Registered: not observed yet: it has not started")
        return
    when = registered["observed_at"].replace("T", " ")
    rows = [("tool", t["name"], summary(t["description"])) for t in registered["tools"]]
    rows += [("command", c["name"], summary(c["description"])) for c in registered["commands"]]
    rows += [("hook", name, "") for name in registered["hooks"]]
    title = f"Registered (observed at its last start on {when})"
    table(title, ("kind", "name", "description"), rows, sys.stdout)


def _group(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``group NAME ID…`` / ``ungroup ID…``: all of them or none (an unknown id refuses)."""
    name = args.name if args.verb == "group" else None
    with StateStore.open(config.home) as store:
        store.set_group(args.ids, name)
    if args.json:
        print_json({"changed": "group", "ids": list(args.ids), "group": name})
    elif name is None:
        print(f"{', '.join(args.ids)}: each runs in its own process")
    else:
        print(
            f"group {name}: {', '.join(args.ids)} may share one process "
            "(when granted the same permissions); nothing separates them there"
        )
    return 0


def _enable(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``enable ID…`` / ``disable ID…``: every id is checked before any is changed."""
    enabled = args.verb == "enable"
    ids = list(dict.fromkeys(args.ids))
    installed = installed_ids(config)
    unknown = [package_id for package_id in ids if package_id not in installed]
    if unknown:
        return refuse_unknown(args, unknown, given=len(ids))
    with StateStore.open(config.home) as store:
        for package_id in ids:
            store.set_enabled(package_id, enabled)
    forget_registrations(config.home, ids)  # enabled again: its next start is a real one
    if args.json:
        print_each(args, [{"changed": "package", "id": i, "enabled": enabled} for i in ids])
        return 0
    for package_id in ids:
        print(f"package {package_id} is {'enabled' if enabled else 'disabled'}")
    return 0


def _installed(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``list --packages``: what ``pi list`` and ``openclaw plugins list`` show — each
    installed package, its version and ecosystem, active or why not. Starts nothing."""
    statuses = evaluate_packages(config.home, load_adapters()) if installed_ids(config) else []
    packages = [
        {"id": s.id, "version": s.package.record.version, "ecosystem": s.package.record.ecosystem,
         "active": s.active, "load_failure": s.load_failure, "reasons": list(s.reasons)}
        for s in statuses
    ]  # fmt: skip
    preferred, installed = read_preference(config), {s.id for s in statuses}
    if args.json:
        print_json({"packages": packages, "preferred": preference_json(preferred, installed)})
        return 0
    rows = [
        (s.id, s.package.record.version or "-", s.package.record.ecosystem,
         s.state)
        for s in statuses
    ]  # fmt: skip
    table("Packages", ("id", "version", "ecosystem", "state"), rows, sys.stdout)
    if statuses or preferred:  # an empty home has no clash to decide
        print(preference_line(preferred, installed))
    return 0


def _status(args: argparse.Namespace, config: GatewayConfig) -> int:
    # The adapters load only to read packages that are there.
    statuses = evaluate_packages(config.home, load_adapters()) if installed_ids(config) else []
    sandboxes = {
        status.id: describe_sandbox(status.entry, status.package.granted, config)
        for status in statuses
    }
    # What the sandbox refused each at its last start: status starts nothing to find out.
    refused = {s.id: recalled_denials(config.home, s.id, s.package.granted) for s in statuses}
    preferred, installed = read_preference(config), {s.id for s in statuses}
    if args.json:
        print_json(
            {
                "packages": [
                    {
                        **s.to_dict(),
                        "sandbox": sandboxes[s.id],
                        "denied_at_last_start": [d.to_dict() for d in refused[s.id]],
                    }
                    for s in statuses
                ],
                "preferred": preference_json(preferred, installed),
            }
        )
        return 0
    rows = []
    for status in statuses:
        data = status.to_dict()
        gates = data["gates"]
        marks = " ".join(
            f"{name}:{'yes' if gates[name] else 'NO'}"
            for name in ("trusted", "permissions", "dependencies", "enabled")
        )
        state = status.state
        if data["secrets"]:
            shown = ", ".join(f"{name} {value}" for name, value in data["secrets"].items())
            state += f" (secrets: {shown})"
        if data["environment"]:
            state += f" ({describe_environment(data['id'], data['environment'])})"
        group = status.package.process_group
        rows.append((data["id"], data["version"], data["ecosystem"], marks, group or "-", state))
    table("Packages", ("id", "version", "ecosystem", "gates", "group", "state"), rows, sys.stdout)
    table("Sandbox", ("id", "what its processes may reach"), list(sandboxes.items()), sys.stdout)
    if statuses or preferred:  # an empty home has no clash to decide
        print(preference_line(preferred, installed))
    said = [d for status in statuses for d in (*status.diagnostics, *refused[status.id])]
    print_diagnostics(said, sys.stdout, named=True)
    return 0
