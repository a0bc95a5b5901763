"""``gateway trust ID|DIR…`` and ``gateway untrust ID|DIR…``: installed packages' content,
or workspace folders (docs/cli.md). Every target is checked before any is changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._errors import Usage
from gateway.cli._output import print_diagnostics, short
from gateway.cli._refusal import print_each, refuse_unknown
from gateway.packages.trust import set_workspace_trust
from gateway.store import STATE_FILE, StateStore

__all__ = ["installed_ids", "run_trust"]


def installed_ids(config: GatewayConfig) -> set[str]:
    if not (config.home / STATE_FILE).exists():
        return set()
    with StateStore.open(config.home) as store:
        return {package.id for package in store.list_packages()}


def run_trust(args: argparse.Namespace, config: GatewayConfig) -> int:
    """An installed package id trusts the package; otherwise a folder is a workspace."""
    trusted = args.verb == "trust"
    targets = list(dict.fromkeys(args.targets))
    installed = installed_ids(config)
    folders = [target for target in targets if target not in installed]
    for target in folders:
        if not Path(target).is_dir() and _looks_like_a_path(target):
            raise Usage(f"{target} is not a folder")
    unknown = [target for target in folders if not Path(target).is_dir()]
    if unknown:
        what = (
            "are neither installed package ids nor folders"
            if len(unknown) > 1
            else "is neither an installed package id nor a folder"
        )
        return refuse_unknown(args, unknown, given=len(targets), what=what)
    packages = [target for target in targets if target not in folders]
    accept_text = bool(getattr(args, "accept_text", False))
    if accept_text and folders:
        raise Usage("--accept-text applies to installed packages, not folders")
    trusting = _packages(config, packages, trusted, accept_text) if packages else {}
    results = [
        _workspace(config, Path(target), trusted) if target in folders else trusting[target]
        for target in targets
    ]
    # A package whose files are gone or cannot be hashed is not trusted (and says why).
    code = 1 if any(r["trusted"] != trusted for r in results) else 0
    if args.json:
        print_each(args, [{k: v for k, v in r.items() if k != "flagged"} for r in results])
        return code
    for result in results:
        state = "trusted" if result["trusted"] else "not trusted"
        if result["changed"] == "workspace":
            print(f"workspace {result['workspace']} is {state if trusted else 'no longer trusted'}")
        elif result["trusted"] == trusted:
            state = state if trusted else "no longer trusted"
            print(f"package {result['id']} is {state} (content {short(result['content_hash'])})")
            if trusted:  # what trusting it lets run, and where it can reach
                print(f"  sandbox: {result['sandbox']}")
            if accept_text:
                accepted = ", ".join(result.get("accepted_text", [])) or "nothing was held back"
                print(f"  text accepted for the model: {accepted}")
        else:
            print(f"package {result['id']} is not trusted")
    flagged = [d for result in results for d in result.get("flagged", [])]
    print_diagnostics(flagged, sys.stdout)
    return code


def _looks_like_a_path(target: str) -> bool:
    return target.startswith(("/", "./", "../", "~")) or target in (".", "..")


def _workspace(config: GatewayConfig, target: Path, trusted: bool) -> dict[str, Any]:
    set_workspace_trust(config.home, target, trusted)
    return {"changed": "workspace", "workspace": str(target.resolve()), "trusted": trusted}


def _packages(
    config: GatewayConfig, ids: list[str], trusted: bool, accept_text: bool = False
) -> dict[str, dict[str, Any]]:
    """Each package trusted (its content hashed again first) and, trusted, what it declares
    for the model read again: its text reaches the model once it runs. ``accept_text``:
    the text held back for the model (``package.model_text_held``) is accepted as it was held."""
    from gateway.host import describe_sandbox
    from gateway.packages import accept_held_text, load_adapters, trust_packages

    done = trust_packages(config.home, ids, trusted, load_adapters())
    accepted = {
        result.package.id: accept_held_text(config.home, result.package.id)
        for result in done
        if accept_text and result.trusted
    }
    return {
        result.package.id: {
            "changed": "package",
            "id": result.package.id,
            "trusted": result.trusted,
            "content_hash": result.package.record.content_hash,
            "sandbox": describe_sandbox(result.package.record, result.package.granted, config),
            "diagnostics": [d.to_dict() for d in result.diagnostics],
            "flagged": result.diagnostics,
            **(
                {"accepted_text": accepted[result.package.id]}
                if result.package.id in accepted
                else {}
            ),
        }
        for result in done
    }
