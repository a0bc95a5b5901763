"""``gateway permissions ID [PERM…] [--revoke] [--widen]`` and its form for several ids,
``gateway permissions ID… --grant PERM…`` / ``--revoke PERM…``: every id is checked, with
every permission, before any grant or revocation is written (docs/cli.md)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._errors import Usage
from gateway.cli._refusal import print_each, refuse, refuse_unknown
from gateway.cli._trust import installed_ids
from gateway.host import discovered_owner
from gateway.model import DECLARES_PERMISSIONS
from gateway.packages import HOOK_PERMISSIONS, load_adapters
from gateway.packages.environment import env_grant_name
from gateway.sandbox import (
    SANDBOX_PERMISSIONS,
    DestinationError,
    destination_grant,
    is_sandbox_grant,
    reopened_names,
)
from gateway.store import StateStore

__all__ = ["run_permissions"]

_OPENS = {
    "workspace.write": "the workspace becomes writable",
    "network": "TCP and UDP to anywhere",
}
_ANY = {**SANDBOX_PERMISSIONS, **HOOK_PERMISSIONS}
"""What any package may be granted whatever it requests: the sandbox's permissions and
``hooks.rewrite`` (its own grant: acting on other packages' tools is no sandbox's)."""


def _discovered_grantable(package_id: str) -> tuple[str, ...]:
    """A discovered ``extension.json`` extension (``nimlet:NAME``) declares its tools'
    capabilities itself: only ``hooks.rewrite`` is the user's to give it."""
    return tuple(HOOK_PERMISSIONS) if package_id.startswith("nimlet:") else tuple(_ANY)


@dataclass(frozen=True, slots=True)
class _Target:
    """One id, checked: what it requests and may be granted."""

    id: str
    discovered: bool
    requested: tuple[str, ...] = ()
    optional: frozenset[str] = frozenset()
    grantable: tuple[str, ...] = tuple(_ANY)
    widening: tuple[str, ...] = ()
    """Sandbox permissions granted to a package that declares its own (said once granted)."""


def _request(args: argparse.Namespace) -> tuple[list[str], list[str], str]:
    """(ids, permissions, action: grant | revoke | show) from either form."""
    if args.grant is not None and args.revoke is not None:
        raise Usage("--grant and --revoke cannot be used together")
    if args.grant is not None:
        return [args.id, *args.permissions], list(args.grant), "grant"
    if args.revoke:  # --revoke PERM…: every id given
        return [args.id, *args.permissions], list(args.revoke), "revoke"
    if args.revoke is not None:  # a bare --revoke: the PERMs after the one id
        return [args.id], list(args.permissions), "revoke" if args.permissions else "show"
    return [args.id], list(args.permissions), "grant" if args.permissions else "show"


def run_permissions(args: argparse.Namespace, config: GatewayConfig) -> int:
    """A package's own requested permissions, plus the sandbox's (SANDBOX_PERMISSIONS): a Pi
    or OpenClaw package declares nothing, and its user decides what its sandbox opens; a
    package that declares its permissions gets one of those only with ``--widen``. A
    discovered extension (``pi:NAME``, ``openclaw:ID``) is granted by its own id."""
    ids, permissions, action = _request(args)
    ids = list(dict.fromkeys(ids))
    installed = installed_ids(config)
    unknown = [i for i in ids if i not in installed and discovered_owner(i) is None]
    if unknown:
        return refuse_unknown(args, unknown, given=len(ids))
    targets = [_check(config, i, i not in installed) for i in ids]
    if action == "grant":
        for target in targets:
            problem = _refusal(args, target, permissions)
            if problem:
                return refuse(args, problem)
    results = [_apply(config, target, permissions, action) for target in targets]
    if args.json:
        print_each(args, results)
        return 0
    for target, result in zip(targets, results, strict=True):
        _print(target, result, permissions if action == "grant" else [], len(targets) > 1)
        if action not in ("grant", "revoke"):  # shown: the command that grants the rest
            missing = [p for p in target.requested if p not in result["granted"]]
            if missing and not target.discovered:
                print(f"  grant: gateway permissions {target.id} {' '.join(missing)}")
    return 0


def _check(config: GatewayConfig, package_id: str, discovered: bool) -> _Target:
    if discovered:
        return _Target(package_id, discovered=True, grantable=_discovered_grantable(package_id))
    with StateStore.open(config.home) as store:
        package = store.get_package(package_id)
    permissions = load_adapters().inspect(package.record.path).permissions
    requested = tuple(p.name for p in permissions)
    grantable = (*requested, *(name for name in _ANY if name not in requested))
    declares = package.record.ecosystem in DECLARES_PERMISSIONS
    return _Target(
        package_id,
        discovered=False,
        requested=requested,
        optional=frozenset(p.name for p in permissions if p.optional),
        grantable=grantable,
        widening=tuple(n for n in SANDBOX_PERMISSIONS if n not in requested) if declares else (),
    )


def _refusal(args: argparse.Namespace, target: _Target, permissions: list[str]) -> str | None:
    """Why ``permissions`` cannot be granted to ``target``, or None."""
    malformed = _malformed_destination(permissions)
    if malformed:
        return malformed
    if target.discovered:
        reopening = _reopening(permissions) if "workspace.write" in target.grantable else set()
        unknown = sorted(set(permissions) - set(target.grantable) - reopening)
        if unknown:
            return (
                f"{target.id} is a discovered extension; it may be granted "
                f"{', '.join(target.grantable)}, not {', '.join(unknown)}"
            )
        return None
    # env:NAME: any variable of the user's environment may be passed to any package.
    reopening = _reopening(permissions)
    unknown = sorted(
        p for p in set(permissions) - set(target.grantable) - reopening if not env_grant_name(p)
    )
    widening = sorted(
        (set(permissions) & set(target.widening))
        | {p for p in reopening if reopened_names([p]) and "workspace.write" in target.widening}
        | {p for p in reopening if p.startswith("network:") and "network" in target.widening}
    )
    if not unknown and (args.widen or not widening):
        return None
    asked = unknown or widening
    hint = (
        f"; to widen its sandbox anyway: gateway permissions {target.id} "
        f"{' '.join(widening)} --widen ({'; '.join(_opens(w) for w in widening)})"
        if not unknown
        else f" (any package may be granted {', '.join(_ANY)}, env:NAME, "
        "network:HOST[:PORT], workspace.write:PATH)"
    )
    return (
        f"{target.id} does not request {', '.join(asked)}; "
        f"it requests: {', '.join(target.requested) or 'nothing'}{hint}"
    )


def _opens(name: str) -> str:
    if name in _OPENS:
        return _OPENS[name]
    if name in HOOK_PERMISSIONS:
        return HOOK_PERMISSIONS[name]
    if name.startswith("network:"):
        return f"connections to {name.partition(':')[2]} only, through the gateway's proxy"
    return f"{name.partition(':')[2]} becomes writable inside the workspace (a protected path)"


def _reopening(permissions: list[str]) -> set[str]:
    """The grants that carry a name, valid: ``workspace.write:PATH`` (a protected workspace
    path) and ``network:HOST[:PORT]`` (a destination)."""
    return {p for p in permissions if is_sandbox_grant(p) and p not in SANDBOX_PERMISSIONS}


def _malformed_destination(permissions: list[str]) -> str | None:
    for name in permissions:
        try:
            destination_grant(name)
        except DestinationError as error:
            return f"{name} names no destination: {error}"
    return None


def _apply(
    config: GatewayConfig, target: _Target, permissions: list[str], action: str
) -> dict[str, Any]:
    with StateStore.open(config.home) as store:
        if target.discovered:
            if action == "grant":
                granted = store.grant_extension(target.id, permissions)
            elif action == "revoke":
                granted = store.revoke_extension(target.id, permissions)
            else:
                granted = store.extension_granted(target.id)
        elif action == "grant":
            grantable = [
                *target.grantable,
                *(p for p in permissions if env_grant_name(p) or is_sandbox_grant(p)),
            ]
            granted = store.grant(target.id, permissions, grantable)
        elif action == "revoke":
            granted = store.revoke(target.id, permissions)
        else:
            granted = store.granted(target.id)
    return {"id": target.id, "requested": list(target.requested), "granted": sorted(granted)}


def _print(target: _Target, result: dict[str, Any], granting: list[str], several: bool) -> None:
    granted: list[str] = result["granted"]
    if several:
        print(f"{target.id}:")
    for name in sorted(set(granting) & {*target.widening, *_reopening(granting)}):
        print(f"widened {target.id}'s sandbox: {_opens(name)}")
    for name in sorted(set(granting) & set(HOOK_PERMISSIONS) & set(granted)):
        print(f"granted {target.id} {name}: {HOOK_PERMISSIONS[name]}")
    if target.discovered:
        for name in target.grantable:
            print(f"  {'granted' if name in granted else 'not granted':12} {name}")
        for name in sorted(_reopening(granted)):
            print(f"  {'granted':12} {name}")
        return
    if not target.requested:  # said first, as the list's heading; the list names each grant
        widens = any(name in _ANY or is_sandbox_grant(name) for name in granted)
        print(f"{target.id} requests no permissions"
              + (": what is granted widens its sandbox" if widens else ""))  # fmt: skip
    listed = [*target.grantable, *(p for p in granted if env_grant_name(p) or is_sandbox_grant(p))]
    for name in dict.fromkeys(listed):
        if name in target.requested or name in granted:
            state = "granted" if name in granted else "not granted"
            print(f"  {state:12} {name}{' (optional)' if name in target.optional else ''}")
