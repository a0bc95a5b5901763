"""The arguments of the package verbs (install, permissions, group, config, secret, auth,
policy, journal, logs): argparse alone, like ``gateway.cli._parser``, which lists them."""

from __future__ import annotations

import argparse

__all__ = [
    "add_auth",
    "add_config",
    "add_group",
    "add_install",
    "add_journal",
    "add_logs",
    "add_permissions",
    "add_policy",
    "add_prefer",
    "add_secret",
    "add_ungroup",
]


def add_install(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("source", metavar="SRC", help="folder, git URL[#ref] or npm spec / tarball")
    sub.add_argument("--kind", choices=("local", "git", "npm"), help="force the source kind")
    sub.add_argument(
        "--replace",
        action="store_true",
        help="replace the installed package of its id from another ecosystem or source (a "
        "new package: nothing of the other carries over); without it, such an install is "
        "refused",
    )
    sub.add_argument("--json", action="store_true")


def add_permissions(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "id", metavar="ID", help="an installed package, or a discovered extension (pi:NAME)"
    )
    sub.add_argument(
        "permissions",
        nargs="*",
        metavar="PERM",
        help="the permissions to grant (or with a bare --revoke, to revoke); with --grant or "
        "--revoke PERM…, more ids",
    )
    sub.add_argument(
        "--grant",
        nargs="+",
        metavar="PERM",
        help="grant these to every ID given (gateway permissions a b --grant network)",
    )
    sub.add_argument(
        "--revoke",
        nargs="*",
        metavar="PERM",
        help="revoke: these from every ID given, or, bare, the PERMs given after the one ID",
    )
    sub.add_argument(
        "--widen",
        action="store_true",
        help="grant a sandbox permission the package does not declare (it says what it opens)",
    )
    sub.add_argument("--json", action="store_true")


def add_group(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("name", metavar="NAME", help="the group: its members may share a process")
    sub.add_argument("ids", nargs="+", metavar="ID")
    sub.add_argument("--json", action="store_true")


def add_ungroup(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("ids", nargs="+", metavar="ID")
    sub.add_argument("--json", action="store_true")


def add_prefer(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "ids", nargs="*", metavar="ID",
        help="installed packages that win name clashes, the first the most (replaces the list)",
    )  # fmt: skip
    sub.add_argument("--clear", action="store_true", help="prefer none: install order decides")
    sub.add_argument("--json", action="store_true")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"not a number of lines: {text!r}")
    return value


def add_logs(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "id", metavar="ID", nargs="?",
        help="an installed package, or a discovered extension (pi:NAME)",
    )  # fmt: skip
    sub.add_argument(
        "--server", action="store_true",
        help="instead: the audit log of serve --mcp --http (one line per tool call)",
    )  # fmt: skip
    sub.add_argument("--json", action="store_true", help="--server: the lines as written (JSON)")
    sub.add_argument(
        "-n", "--lines", type=_count, default=50, metavar="N",
        help="show the last N lines of each log (default 50)",
    )  # fmt: skip
    sub.add_argument(
        "-f", "--follow", action="store_true",
        help="keep printing what is written, until Ctrl-C",
    )  # fmt: skip


def add_config(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("id", metavar="ID")
    sub.add_argument("key", nargs="?", metavar="KEY", help="a dotted key, e.g. oss.llm.provider")
    sub.add_argument("value", nargs="?", metavar="VALUE", help="JSON, or text")
    sub.add_argument("--unset", action="store_true", help="remove KEY")
    sub.add_argument("--json", action="store_true")


def add_secret(sub: argparse.ArgumentParser) -> None:
    actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, text in (
        ("set", "set NAME (the value is read from stdin, or asked for on a terminal)"),
        ("unset", "remove NAME's value"),
        ("list", "the package's secrets: set or unset (never the values)"),
    ):
        verb = actions.add_parser(action, help=text)
        verb.add_argument("id", metavar="ID")
        if action != "list":
            verb.add_argument("name", metavar="NAME")
        verb.add_argument("--json", action="store_true")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}")
    return value


def add_auth(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("id", metavar="ID")
    sub.add_argument(
        "server", nargs="?", metavar="SERVER", help="one of its remote MCP servers (default: each)"
    )
    what = sub.add_mutually_exclusive_group()
    what.add_argument(
        "--status", action="store_true", help="signed in or not, until when (never a token)"
    )
    what.add_argument("--sign-out", action="store_true", help="forget the kept tokens")
    sub.add_argument(
        "--no-browser", action="store_true", help="print the authorization URL, open nothing"
    )
    sub.add_argument(
        "--timeout", type=_seconds, default=300.0, metavar="S",
        help="how long to wait for the browser's redirect (default 300)",
    )  # fmt: skip
    sub.add_argument("--json", action="store_true")


def add_policy(sub: argparse.ArgumentParser) -> None:
    actions = sub.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, text in (
        ("show", "the rules the package suggests, and whether they are adopted"),
        ("accept", "adopt the rules the package suggests (they apply to every tool call)"),
        ("revoke", "drop the package's adopted rules"),
    ):
        verb = actions.add_parser(action, help=text)
        verb.add_argument("id", metavar="ID")
        verb.add_argument("--json", action="store_true")


def add_journal(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--all", action="store_true", help="every journaled call, not only open ones")
    sub.add_argument("--json", action="store_true")
    actions = sub.add_subparsers(dest="action", metavar="ACTION")
    resolve = actions.add_parser("resolve", help="say whether an interrupted call happened")
    resolve.add_argument("call", metavar="CALL")
    resolve.add_argument("resolution", choices=("ran", "not_run"))
    resolve.add_argument("--json", action="store_true")
