"""``gateway auth ID [SERVER] [--status] [--sign-out] [--no-browser] [--timeout S]``: a
person signs in to the remote MCP servers of a package (OAuth 2.1), or sees and ends those
sign-ins (docs/cli.md).

The sign-in itself is the adapter's (``gateway.model.SignsIn``: the Agent Plugins and
Claude Code adapters, through the plugin host's OAuth client): it prints the authorization
URL (and opens it in a browser unless ``--no-browser``), waits on a loopback redirect, and
keeps the tokens with the package's sign-ins (``gateway.packages.sign_ins``: 0600, never
shown). A running gateway restarts the package when it is done. Tokens are never printed:
``--status`` says signed in or not, until when, and whether it refreshes.
"""

from __future__ import annotations

import argparse
import sys
import time
import webbrowser
from typing import Any

import anyio

from gateway.base import GatewayConfig, printable
from gateway.cli._config import installed_entry
from gateway.cli._output import print_json
from gateway.model import RemoteServer, SignedIn, SignInFailed, SignInPrompt, SignsIn
from gateway.packages import load_adapters
from gateway.packages.sign_ins import (
    SignInError,
    forget_sign_in,
    read_sign_in,
    sign_in_folder,
    stamp_sign_in,
)

__all__ = ["run_auth"]


def run_auth(args: argparse.Namespace, config: GatewayConfig) -> int:
    entry = installed_entry(config, args.id)
    if entry is None:
        return _refuse(args, f"no installed package {args.id!r} (see `gateway status`)")
    adapter = load_adapters().adapter(entry.ecosystem)
    servers: list[RemoteServer] = (
        adapter.remote_servers(entry) if isinstance(adapter, SignsIn) else []
    )
    if not servers:
        return _refuse(args, f"{args.id} connects to no remote MCP server; nothing to sign in to")
    if args.server is not None:
        servers = [s for s in servers if s.name == args.server]
        if not servers:
            return _refuse(args, f"{args.id} has no remote MCP server {args.server!r}")
    if args.status:
        return _status(args, config, servers)
    if args.sign_out:
        return _sign_out(args, config, servers)
    assert isinstance(adapter, SignsIn)
    prompt = SignInPrompt(show=_shower(args), timeout=args.timeout)
    results: list[dict[str, Any]] = []
    for server in servers:
        try:
            done: SignedIn = anyio.run(adapter.sign_in, entry, config.home, server.name, prompt)
        except SignInFailed as error:
            said = f"{args.id}: signing in to {server.name!r} failed: {error}"
            return _refuse(args, said, error.code)
        except KeyboardInterrupt:
            return _refuse(args, "interrupted; nothing was kept")
        results.append(_outcome(done))
        if not args.json:
            print(_said(args.id, server, done))
    if args.json:
        print_json({"id": args.id, "servers": results})
    return 0


def _shower(args: argparse.Namespace) -> Any:
    def show(url: str) -> None:
        # The URL is the prompt, not the result: stderr, so --json stays one document.
        print(f"Open this URL to sign in (it is waited for {args.timeout:g} s):", file=sys.stderr)
        print(f"  {printable(url)}", file=sys.stderr, flush=True)
        if not args.no_browser:
            webbrowser.open(url)

    return show


def _outcome(done: SignedIn) -> dict[str, Any]:
    return {
        "server": done.server,
        "signed_in": done.needed,
        "tools": done.tools,
        "expires_at": done.expires_at,
        "refreshable": done.refreshable,
    }


def _said(package: str, server: RemoteServer, done: SignedIn) -> str:
    if not done.needed:
        return f"{server.name} ({server.url}) asks for no sign-in: {done.tools} tools, nothing kept"
    refresh = "refreshed before it expires" if done.refreshable else "not refreshable"
    until = f", valid until {_when(done.expires_at)}" if done.expires_at else ""
    return (
        f"signed in to {server.name} ({server.url}): {done.tools} tools{until}; the token is "
        f"{refresh}; {package} restarts in a running gateway"
    )


def _when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at)) if at else "-"


def _status(args: argparse.Namespace, config: GatewayConfig, servers: list[RemoteServer]) -> int:
    folder = sign_in_folder(config.home, args.id)
    shown: list[dict[str, Any]] = []
    for server in servers:
        try:
            record = read_sign_in(folder, server.name)
        except SignInError as error:
            return _refuse(args, str(error))
        if record is None or record.url != server.url:
            shown.append({"server": server.name, "url": server.url, "state": "signed-out"})
        else:
            shown.append(record.describe())
    if args.json:
        print_json({"id": args.id, "servers": shown})
        return 0
    for item in shown:
        line = f"  {item['state']:10} {item['server']} ({printable(item['url'])})"
        if item.get("expires_at"):
            line += f", expires {_when(item['expires_at'])}"
        if item.get("refreshable"):
            line += ", refreshable"
        if item.get("refused"):
            line += f": {printable(item['refused'])}"
        print(line)
    return 0


def _sign_out(args: argparse.Namespace, config: GatewayConfig, servers: list[RemoteServer]) -> int:
    folder = sign_in_folder(config.home, args.id)
    forgotten = [s.name for s in servers if forget_sign_in(folder, s.name)]
    if forgotten:
        stamp_sign_in(config.home, args.id)  # a running gateway restarts it without them
    if args.json:
        print_json({"id": args.id, "signed_out": forgotten})
    else:
        for server in servers:
            state = "signed out" if server.name in forgotten else "was not signed in"
            print(f"{server.name}: {state}")
    return 0


def _refuse(args: argparse.Namespace, message: str, code: str | None = None) -> int:
    if args.json:
        print_json({"error": message, **({"code": code} if code else {})})
    else:
        tail = f" [{code}]" if code else ""
        print(f"gateway: error: {printable(message)}{tail}", file=sys.stderr)
    return 1
