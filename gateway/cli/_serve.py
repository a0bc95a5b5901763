"""``gateway serve --mcp | --nimlet``: the packages behind this gateway for another host."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import anyio

from gateway.base import GatewayConfig
from gateway.cli._errors import Usage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gateway.serve import ServeOptions, ToolSearchOptions

__all__ = ["run_serve", "serve_options"]


def run_serve(args: argparse.Namespace, config: GatewayConfig) -> int:
    from gateway.serve import defer_package_inits, serve_mcp, serve_nimlet

    options = serve_options(args, config)
    if args.mcp:
        # This process is the server and nothing else: the SDK's client and MCPServer are
        # not imported (their packages' __init__ run only if something asks for them).
        # Not in serve_mcp itself: a program embedding it keeps its imports as they are.
        defer_package_inits()
    if args.http is not None:
        return _serve_http(args, options)
    if args.mcp:
        return anyio.run(serve_mcp, options)
    return anyio.run(serve_nimlet, options, args.protocol)


def serve_options(args: argparse.Namespace, config: GatewayConfig) -> ServeOptions:
    """What ``gateway serve ARGS`` serves; raises ``Usage`` for options that do not go
    together."""
    from gateway.serve import ServeOptions

    if args.home:
        config = dataclasses.replace(config, home=Path(args.home).expanduser().resolve())
    given = args.serve_workspace
    if given is not None and not given.strip():
        raise ValueError("--workspace is empty; use `.` for the current folder")
    options = ServeOptions(
        workspace=Path(given) if given else Path.cwd(),
        packages=tuple(dict.fromkeys(args.package)),
        trust=True if args.trust else None,
        plan=args.plan,
        config=config,
        workspace_given=given is not None,
        strict=args.strict,
        tool_search=_tool_search(args),
        metrics=args.metrics,
        audit_arguments=args.audit_arguments,
        # Not resolved: a ConfigMap's key is a link that an update points elsewhere.
        lockfile=Path(args.lockfile).expanduser().absolute() if args.lockfile else None,
        quiet=args.quiet,
        verbose=args.verbose,
    )
    if not args.mcp and (args.metrics or args.lockfile):
        raise Usage("--metrics and --lockfile are for serve --mcp")
    if args.http is None and args.audit_arguments:
        raise Usage("--audit-arguments is for serve --mcp --http (its audit log)")
    return options


def _tool_search(args: argparse.Namespace) -> ToolSearchOptions:
    """``--tool-search``, ``--tool-search-above``, ``--pin`` as ``ToolSearchOptions``."""
    from gateway.serve import ToolSearchOptions

    above = args.tool_search_above
    if not args.mcp and (args.tool_search != "auto" or args.pin or above is not None):
        raise Usage("--tool-search, --tool-search-above and --pin are for --mcp")
    if above is not None and above < 0:
        raise Usage("--tool-search-above must be 0 or more")
    pins = tuple(dict.fromkeys(args.pin))
    if above is None:
        return ToolSearchOptions(args.tool_search, pins=pins)
    return ToolSearchOptions(args.tool_search, above, pins)


def _serve_http(args: argparse.Namespace, options: ServeOptions) -> int:
    from gateway.serve import serve_mcp_http

    if not args.mcp:
        raise Usage("--http serves MCP: use it with --mcp")
    if args.max_calls < 1:
        raise Usage("--max-calls must be at least 1")
    if args.rate < 0:
        raise Usage("--rate must be 0 (no limit) or more")
    oauth = None
    if args.oauth_issuer:
        from gateway.serve import OAuthSettings

        oauth = OAuthSettings(
            issuer=args.oauth_issuer, resource=args.oauth_resource or "",
            jwks_url=args.oauth_jwks, required_scope=args.oauth_scope,
            audience=args.oauth_audience,
        )  # fmt: skip
    elif any((args.oauth_jwks, args.oauth_audience, args.oauth_resource, args.oauth_scope)):
        raise Usage("--oauth-jwks, --oauth-audience, --oauth-resource and --oauth-scope need "
                    "--oauth-issuer")  # fmt: skip
    return anyio.run(serve_mcp_http, options, args.http, args.max_calls, oauth, args.rate)
