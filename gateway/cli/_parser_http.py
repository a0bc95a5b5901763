"""The arguments of ``gateway serve --http`` and ``gateway token`` (docs/cli.md), apart
from ``_parser`` so that each verb's arguments stay small."""

from __future__ import annotations

import argparse

__all__ = ["serve_http_arguments", "token_arguments"]


def serve_http_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="--mcp: serve MCP's streamable HTTP at /mcp instead of stdio (bearer tokens: "
        "gateway token create; host 127.0.0.1 unless given)",
    )
    sub.add_argument(
        "--max-calls",
        type=int,
        default=8,
        metavar="N",
        help="--http: calls one token may have in flight (default: 8)",
    )
    sub.add_argument(
        "--rate",
        type=int,
        default=0,
        metavar="N",
        help="--http: calls one token may make a minute (default: no limit)",
    )
    sub.add_argument(
        "--oauth-issuer",
        metavar="URL",
        help="--http: also accept this OAuth 2.1 issuer's JWT access tokens (keys from its "
        "JWKS; scopes package:ID limit a token to packages)",
    )
    sub.add_argument(
        "--oauth-jwks", metavar="URL", help="--oauth-issuer: the issuer's key set (default: "
        "the jwks_uri of its /.well-known metadata)",
    )  # fmt: skip
    sub.add_argument(
        "--oauth-audience", metavar="AUD", help="--oauth-issuer: the audience tokens must name "
        "(default: --oauth-resource)",
    )  # fmt: skip
    sub.add_argument(
        "--oauth-resource", metavar="URL", help="--oauth-issuer: this server's /mcp URL as "
        "clients reach it (default: http://HOST:PORT/mcp)",
    )  # fmt: skip
    sub.add_argument(
        "--oauth-scope", metavar="SCOPE", help="--oauth-issuer: a scope every token must carry",
    )  # fmt: skip
    sub.add_argument(
        "--audit-arguments", action="store_true",
        help="--http: the audit log keeps each call's arguments and result too (default: never)",
    )  # fmt: skip
    sub.add_argument(
        "--metrics", metavar="[HOST:]PORT|token",
        help="--mcp: Prometheus metrics at /metrics on a listener of their own (host "
        "127.0.0.1 unless given), or `token`: on the --http address, for metrics tokens",
    )  # fmt: skip
    sub.add_argument(
        "--lockfile", metavar="FILE",
        help="--mcp: when FILE changes, `gateway sync --frozen --accept` it and serve the "
        "new package set without a restart (a Kubernetes ConfigMap)",
    )  # fmt: skip


def token_arguments(sub: argparse.ArgumentParser) -> None:
    actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="make a token for serve --http (shown once)")
    create.add_argument("name", metavar="NAME")
    create.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="ID",
        help="the token sees only this package's tools (repeatable); default: every package",
    )
    create.add_argument("--expires", metavar="DURATION", help="e.g. 12h, 30d, 2w (default: never)")
    create.add_argument(
        "--metrics", action="store_true",
        help="a token that reads /metrics of serve --metrics token, and nothing else",
    )  # fmt: skip
    create.add_argument("--json", action="store_true")
    listing = actions.add_parser("list", help="every token: name, scope, expiry (never the token)")
    listing.add_argument("--json", action="store_true")
    revoke = actions.add_parser("revoke", help="stop a token working, at once")
    revoke.add_argument("name", metavar="NAME")
    revoke.add_argument("--json", action="store_true")
