"""``gateway token create|list|revoke``: the bearer tokens of ``serve --mcp --http``
(docs/cli.md, docs/serve.md).

``create`` prints the token once (only its SHA-256 is kept); ``list`` never shows a token;
``revoke`` stops one at the next request of a running server.
"""

from __future__ import annotations

import argparse
import sys

from gateway.base import GatewayConfig
from gateway.cli import _codes
from gateway.cli._errors import Usage
from gateway.cli._output import print_json, refuse
from gateway.serve import TokenError, TokenRecord, TokenStore, parse_duration

__all__ = ["run_token"]


def run_token(args: argparse.Namespace, config: GatewayConfig) -> int:
    store = TokenStore(config.home)
    try:
        if args.action == "create":
            return _create(args, config, store)
        if args.action == "revoke":
            record = store.revoke(args.name)
            if args.json:
                print_json({"revoked": record.public()})
            else:
                print(f"token {record.name} revoked")
            return 0
        return _list(args, store.records())
    except TokenError as error:
        refuse(error.diagnostic, as_json=args.json)
        return 1


def _create(args: argparse.Namespace, config: GatewayConfig, store: TokenStore) -> int:
    expires_in = None if args.expires is None else parse_duration(args.expires)
    packages = tuple(dict.fromkeys(args.package))
    if args.metrics and packages:
        raise Usage("--metrics makes a token that reads /metrics only: it takes no --package")
    _check_installed(config, packages)
    token, record = store.create(args.name, packages, expires_in, metrics=args.metrics)
    if args.json:
        print_json({**record.public(), "token": token})
        return 0
    print(token)
    print(
        f"token {record.name}: {_scope(record)}, {_expiry(record)}. It is shown only now; "
        "clients send it as `Authorization: Bearer TOKEN`.",
        file=sys.stderr,
    )
    return 0


def _check_installed(config: GatewayConfig, packages: tuple[str, ...]) -> None:
    if not packages:
        return
    from gateway.store import StateStore, UnknownPackage

    with StateStore.open(config.home) as state:
        for package_id in packages:
            try:
                state.get_package(package_id)
            except UnknownPackage:
                raise TokenError(
                    _codes.SERVE_TOKEN_SCOPE(
                        f"--package {package_id!r} is not installed in {config.home}",
                        package=package_id,
                        hint="gateway status lists the installed packages",
                    )
                ) from None


def _scope(record: TokenRecord) -> str:
    if record.metrics:
        return "/metrics only"
    return "packages " + ", ".join(record.packages) if record.packages else "every package"


def _expiry(record: TokenRecord) -> str:
    shown = record.public()
    if record.expires is None:
        return "never expires"
    return f"expired {shown['expires']}" if record.expired() else f"expires {shown['expires']}"


def _list(args: argparse.Namespace, records: tuple[TokenRecord, ...]) -> int:
    if args.json:
        print_json({"tokens": [record.public() for record in records]})
        return 0
    if not records:
        print("no tokens (gateway token create NAME makes one)")
    for record in records:
        print(f"  {record.name:24} {_scope(record)}; {_expiry(record)}")
    return 0
