"""``gateway policy show|accept|revoke ID``: the policy rules a package suggests (Nu's
``policy.yaml``, in rebuno's grammar), adopted only when the user accepts them; adopted
rules apply to every tool call, of any ecosystem (docs/cli.md, docs/nu.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from gateway.base import GatewayConfig
from gateway.cli._output import print_json, table
from gateway.model import CatalogEntry
from gateway.packages import load_adapters
from gateway.policy import parse_bundle
from gateway.store import STATE_FILE, PolicyRecords, StateStore, UnknownPackage, bundle_digest

__all__ = ["print_suggested", "run_policy", "suggested_policy"]


def suggested_policy(entry: CatalogEntry) -> dict[str, Any] | None:
    """The package's suggested bundle (``metadata["policy"]``) when it is valid."""
    policy = entry.metadata.get("policy")
    bundle = policy.get("bundle") if isinstance(policy, dict) and policy.get("valid") else None
    return bundle if isinstance(bundle, dict) else None


def _rows(bundle: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    rows = []
    for rule in sorted(bundle.get("rules") or [], key=lambda r: r.get("priority", 0)):
        when = rule.get("when") or {}
        then = rule.get("then") or {}
        targets = [when["target"]] if "target" in when else list(when.get("targets") or ["*"])
        arguments = ", ".join(
            f"{name} {op} {value!r}"
            for name, test in (when.get("arguments") or {}).items()
            for op, value in test.items()
        )
        shown = " / ".join(targets) + (f" where {arguments}" if arguments else "")
        decision = str(then.get("decision", ""))
        if then.get("rate_limit"):
            limit = then["rate_limit"]
            decision += f" (≤ {limit.get('max_calls')} per {limit.get('window')})"
        reason = then.get("reason") or (then.get("approval_config") or {}).get("message") or ""
        rows.append((str(rule.get("priority")), str(rule.get("id")), decision,
                     f"{shown}{': ' + reason if reason else ''}"))  # fmt: skip
    return rows


def print_suggested(package_id: str, bundle: dict[str, Any], out: TextIO) -> None:
    """The rules as ``gateway install`` and ``policy show`` print them."""
    table("Suggested policy rules", ("priority", "id", "decision", "when"), _rows(bundle), out)
    print(f"  no rule matches a tool of {package_id}: {bundle.get('default_action', 'deny')}",
          file=out)  # fmt: skip


def run_policy(args: argparse.Namespace, config: GatewayConfig) -> int:
    if not (config.home / STATE_FILE).exists():
        return _refuse(args, f"no installed package {args.id!r} (see `gateway status`)")
    with StateStore.open(config.home) as store:
        try:
            root = store.get_package(args.id).record.path
        except UnknownPackage as error:
            return _refuse(args, f"{error} (see `gateway status`)")
        records = PolicyRecords(store)
        suggested = suggested_policy(load_adapters().inspect(root))
        if args.action == "accept":
            if suggested is None:
                return _refuse(args, f"{args.id} suggests no valid policy (see `gateway inspect`)")
            bundle, problems = parse_bundle(suggested)
            if bundle is None:
                return _refuse(args, f"{args.id}: its policy does not parse: {'; '.join(problems)}")
            records.accept(args.id, suggested)
        elif args.action == "revoke":
            records.revoke(args.id)
        adopted = records.get(args.id)
    current = adopted is not None and suggested is not None
    same = current and adopted is not None and bundle_digest(suggested or {}) == adopted.digest
    if args.json:
        print_json({
            "id": args.id,
            "suggested": suggested,
            "adopted": adopted.bundle if adopted is not None else None,
            "accepted_at": adopted.accepted_at.isoformat() if adopted is not None else None,
            "adopted_is_suggested": bool(same),
        })  # fmt: skip
        return 0
    out = sys.stdout
    if args.action == "accept":
        print(f"adopted the policy of {args.id}: its rules apply to every tool call")
    elif args.action == "revoke":
        print(f"the policy of {args.id} is not applied")
    if args.action == "show":
        if suggested is None:
            print(f"{args.id} suggests no policy")
        else:
            print_suggested(args.id, suggested, out)
        if adopted is None:
            print(f"  not adopted: gateway policy accept {args.id}")
        elif same:
            print(f"  adopted {adopted.accepted_at:%Y-%m-%d %H:%M} UTC")
        else:
            when = f"{adopted.accepted_at:%Y-%m-%d %H:%M} UTC"
            print(f"  adopted {when}, but the package now suggests other rules: "
                  f"`gateway policy accept {args.id}` adopts them")  # fmt: skip
    return 0


def _refuse(args: argparse.Namespace, message: str) -> int:
    if args.json:
        print_json({"error": message})
    else:
        print(f"gateway: error: {message}", file=sys.stderr)
    return 1
