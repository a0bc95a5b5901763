"""Package verbs: install, inspect, permissions, enable, disable, uninstall, status
(``install`` and ``uninstall`` in ``gateway.cli._install``). Each prints a readable
summary, or JSON with ``--json``."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli._output import print_diagnostics, print_json, summary, table
from gateway.cli._refusal import refuse
from gateway.cli._trust import installed_ids
from gateway.host import describe_sandbox
from gateway.packages import evaluate_packages, load_adapters, recalled_denials
from gateway.packages.environment import describe_environment, env_grant_name
from gateway.sandbox import SANDBOX_PERMISSIONS
from gateway.store import StateStore, UnknownPackage

__all__ = ["refuse", "run_package_verb"]


def run_package_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    if args.verb in ("install", "uninstall"):
        # The installer (sources, npm, extraction) is loaded only by the verbs that use it.
        from gateway.cli import _install

        handler = _install.run_install if args.verb == "install" else _install.run_uninstall
    else:
        handler = {
            "inspect": _inspect,
            "permissions": _permissions,
            "enable": _enable,
            "disable": _enable,
            "status": _status,
            "group": _group,
            "ungroup": _group,
        }[args.verb]
    try:
        return handler(args, config)
    except UnknownPackage as error:
        return refuse(args, f"{error} (see `gateway status`)")


def _inspect(args: argparse.Namespace, config: GatewayConfig) -> int:
    target = args.target
    inspector = load_adapters().inspect
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            root = store.get_package(target).record.path
    elif Path(target).is_dir():
        root = Path(target).resolve()
    else:
        return refuse(args, f"{target} is neither an installed package id nor a folder")
    entry = inspector(root)
    data = entry.to_dict()
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            granted = store.granted(target)
        data["sandbox"] = describe_sandbox(entry, granted, config)
    if args.json:
        print_json(data)
        return 0
    print(
        f"{data['id']} {data['version']} — {data['ecosystem']} package, runtime {data['runtime']}"
    )
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
    print_diagnostics(entry.diagnostics, sys.stdout)
    return 0


# Ecosystems whose packages declare what they need: granting more than that is the user
# widening the package's sandbox on purpose (``--widen``), never a side effect of a typo.
_DECLARING = frozenset({"nanobot", "nimlet"})
_OPENS = {
    "workspace.write": "the workspace becomes writable",
    "network": "TCP and UDP to anywhere",
}
_DISCOVERED = re.compile(r"^(pi|openclaw):.+")


def _permissions(args: argparse.Namespace, config: GatewayConfig) -> int:
    """A package's own requested permissions, plus the sandbox's (SANDBOX_PERMISSIONS): a Pi
    or OpenClaw package declares nothing, and its user decides what its sandbox opens; a
    package that declares its permissions gets one of those only with ``--widen``. A
    discovered extension (``pi:NAME``, ``openclaw:ID``) is granted by its own id."""
    if args.id not in installed_ids(config) and _DISCOVERED.match(args.id):
        return _extension_permissions(args, config)
    with StateStore.open(config.home) as store:
        package = store.get_package(args.id)
        permissions = load_adapters().inspect(package.record.path).permissions
        requested = [p.name for p in permissions]
        optional = {p.name for p in permissions if p.optional}
        grantable = [*requested, *(name for name in SANDBOX_PERMISSIONS if name not in requested)]
        # A user variable (env:NAME) is its own consent, not a widening of the sandbox.
        widening = sorted(
            p for p in set(args.permissions) - set(requested) if not env_grant_name(p)
        )
        if args.permissions and args.revoke:
            store.revoke(args.id, args.permissions)
        elif args.permissions:
            # env:NAME: any variable of the user's environment may be passed to any package.
            grantable += [p for p in args.permissions if env_grant_name(p)]
            unknown = sorted(set(args.permissions) - set(grantable))
            if unknown or (widening and package.record.ecosystem in _DECLARING and not args.widen):
                asked = unknown or widening
                hint = (
                    f"; to widen its sandbox anyway: gateway permissions {args.id} "
                    f"{' '.join(widening)} --widen ({'; '.join(_OPENS[w] for w in widening)})"
                    if not unknown
                    else f" (any package may be granted {', '.join(SANDBOX_PERMISSIONS)}, env:NAME)"
                )
                return refuse(
                    args,
                    f"{args.id} does not request {', '.join(asked)}; "
                    f"it requests: {', '.join(requested) or 'nothing'}{hint}",
                )
            store.grant(args.id, args.permissions, grantable)
            for name in widening:
                if not args.json and package.record.ecosystem in _DECLARING:
                    print(f"widened {args.id}'s sandbox: {_OPENS[name]}")
        granted = sorted(store.granted(args.id))
    if args.json:
        print_json({"id": args.id, "requested": requested, "granted": granted})
        return 0
    for name in dict.fromkeys([*grantable, *(p for p in granted if env_grant_name(p))]):
        if name in requested or name in granted:
            state = "granted" if name in granted else "not granted"
            print(f"  {state:12} {name}{' (optional)' if name in optional else ''}")
    if not requested:
        print(f"{args.id} requests no permissions", end="")
        extra = [name for name in granted if name in SANDBOX_PERMISSIONS]
        print(f"; its sandbox is widened by: {', '.join(extra)}" if extra else "")
    return 0


def _extension_permissions(args: argparse.Namespace, config: GatewayConfig) -> int:
    """A discovered extension declares nothing: the sandbox's permissions are its to grant."""
    unknown = sorted(set(args.permissions) - set(SANDBOX_PERMISSIONS))
    if unknown:
        return refuse(
            args,
            f"{args.id} is a discovered extension; it may be granted "
            f"{', '.join(SANDBOX_PERMISSIONS)}, not {', '.join(unknown)}",
        )
    with StateStore.open(config.home) as store:
        if args.permissions and args.revoke:
            granted = store.revoke_extension(args.id, args.permissions)
        elif args.permissions:
            granted = store.grant_extension(args.id, args.permissions)
        else:
            granted = store.extension_granted(args.id)
    if args.json:
        print_json({"id": args.id, "requested": [], "granted": sorted(granted)})
        return 0
    for name in SANDBOX_PERMISSIONS:
        print(f"  {'granted' if name in granted else 'not granted':12} {name}")
    return 0


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
    enabled = args.verb == "enable"
    with StateStore.open(config.home) as store:
        store.set_enabled(args.id, enabled)
    if args.json:
        print_json({"changed": "package", "id": args.id, "enabled": enabled})
    else:
        print(f"package {args.id} is {'enabled' if enabled else 'disabled'}")
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
                ]
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
        state = "active" if status.active else "inactive: " + "; ".join(status.reasons)
        if data["secrets"]:
            shown = ", ".join(f"{name} {value}" for name, value in data["secrets"].items())
            state += f" (secrets: {shown})"
        if data["environment"]:
            state += f" ({describe_environment(data['id'], data['environment'])})"
        group = status.package.process_group
        rows.append((data["id"], data["version"], data["ecosystem"], marks, group or "-", state))
    table("Packages", ("id", "version", "ecosystem", "gates", "group", "state"), rows, sys.stdout)
    table("Sandbox", ("id", "what its processes may reach"), list(sandboxes.items()), sys.stdout)
    said = [d for status in statuses for d in (*status.diagnostics, *refused[status.id])]
    print_diagnostics(said, sys.stdout)
    return 0
