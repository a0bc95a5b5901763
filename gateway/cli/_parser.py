"""What every verb accepts: the ``gateway`` argument parser.

Built from argparse alone. What a verb does lives in its own module, imported only when
that verb runs (``gateway.cli._main``), so ``gateway --help``, ``--version`` and a usage
error never load the host, pydantic models, jsonschema, rich or the MCP SDK. Choices that
another floor owns are repeated here and kept equal to it by ``tests/gateway/test_cli_start.py``.
"""

from __future__ import annotations

import argparse
import sys

from gateway.cli._parser_http import token_arguments
from gateway.cli._parser_packages import (
    add_auth,
    add_config,
    add_group,
    add_install,
    add_journal,
    add_logs,
    add_permissions,
    add_policy,
    add_prefer,
    add_secret,
    add_ungroup,
)
from gateway.cli._parser_search import list_token_arguments
from gateway.cli._parser_serve import serve_arguments
from gateway.cli._parser_tools import TOOL_VERBS
from gateway.cli._parser_update import add_outdated, add_update

TYPE_CHECKING = False  # typing itself costs several ms at start
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = [
    "AUDIT_FAIL_ON",
    "AUDIT_FORMATS",
    "AUDIT_HOSTS",
    "MIGRATE_TARGETS",
    "PACKAGE_VERBS",
    "build_parser",
]

DESCRIPTION = "``gateway``: a thin command line over the Python API (see `gateway docs cli`)."
PACKAGE_VERBS = (
    "install", "inspect", "permissions", "enable", "disable", "uninstall", "status", "group",
    "ungroup", "prefer",
)  # fmt: skip
MIGRATE_TARGETS = ("nimlet", "nanobot", "mcp", "agent-plugin", "nanobot-manifest",
                   "gemini-extension", "codex-plugin")  # fmt: skip
AUDIT_FORMATS = ("text", "json", "markdown", "html", "sarif", "badge")
"""``gateway.audit.FORMATS``."""
AUDIT_FAIL_ON = ("unsupported", "partial", "risk")
"""``gateway.audit.FAIL_ON``."""
AUDIT_HOSTS = ("gateway", "nimlet", "nu", "nanobot", "pi", "openclaw", "agent-plugins",
               "gemini", "codex")  # fmt: skip
"""``gateway.audit.HOSTS``."""


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from gateway.base import gateway_version

        sys.stdout.write(f"gateway {gateway_version()}\n")
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv`` (default: ``sys.argv[1:]``). Every verb is listed, but only
    the verb ``argv`` names gets its arguments: argparse makes a help formatter and looks up
    translations for each argument it adds, most of ``gateway --version``'s own time when
    done for all of them."""
    parser = argparse.ArgumentParser(prog="gateway", description=DESCRIPTION)
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="verb", required=True, metavar="COMMAND")
    named = _named_verb(sys.argv[1:] if argv is None else argv)
    for verb, (text, add_arguments, description) in _VERBS.items():
        if text:
            sub = commands.add_parser(verb, help=text, description=description)
        else:  # no help line: a hidden verb
            sub = commands.add_parser(verb, description=description)
        if verb == named:
            add_arguments(sub)
    return parser


def _named_verb(argv: Sequence[str]) -> str | None:
    # The top level takes no option with a value: the first word is the verb.
    word = next((a for a in argv if not a.startswith("-")), None)
    return word if word in _VERBS else None


def _common(parser: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    parser.add_argument("--workspace", help="workspace folder (default: the current one)")
    parser.add_argument("--trust", action="store_true", help="trust the workspace for this run")
    parser.add_argument("--plan", action="store_true", help="plan mode: read/user tools only")
    parser.add_argument("--session", metavar="ID", help="resume this session")
    if json_flag:
        parser.add_argument("--json", action="store_true", help="machine-readable output")


def _list(sub: argparse.ArgumentParser) -> None:
    _common(sub)
    sub.add_argument(
        "--packages",
        action="store_true",
        help="the installed packages instead: id, version, ecosystem, active or not "
        "(starts nothing)",
    )
    sub.add_argument(
        "--strict",
        action="store_true",
        help="withhold descriptions whose text looks like instructions to the model",
    )
    list_token_arguments(sub)


def _verbosity(sub: argparse.ArgumentParser) -> None:
    loudness = sub.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q", "--quiet", action="store_true",
        help="only the result and the called package's errors",
    )  # fmt: skip
    loudness.add_argument(
        "-v", "--verbose", action="store_true",
        help="every package's warnings, not only the called one's",
    )  # fmt: skip


def _call(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("tool")
    sub.add_argument("arguments", nargs="?", default="{}", metavar="JSON_ARGS")
    _common(sub)
    _verbosity(sub)


def _command(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("name")
    sub.add_argument("arguments", nargs="*", metavar="ARGS")
    _common(sub)
    _verbosity(sub)


def _shell(sub: argparse.ArgumentParser) -> None:
    _common(sub, json_flag=False)
    sub.add_argument(
        "-v", "--verbose", action="store_true",
        help="every package's start-up warnings, not one line for them",
    )  # fmt: skip
    sub.add_argument(
        "--permissions",
        choices=("ask", "allow"),
        default=None,
        help="permission prompts of extension tools: ask, or allow without asking "
        "(default: ask on a terminal, allow otherwise, as nimlet's headless modes do)",
    )


def _target(sub: argparse.ArgumentParser, metavar: str = "ID|DIR") -> None:
    sub.add_argument("target", metavar=metavar)
    sub.add_argument("--json", action="store_true")


def _targets(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("targets", nargs="+", metavar="ID|DIR")
    sub.add_argument("--json", action="store_true")


def _trust_targets(sub: argparse.ArgumentParser) -> None:
    _targets(sub)
    sub.add_argument("--accept-text", action="store_true", help="accept held-back model text")


def _json(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--json", action="store_true")


def _package_ids(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("ids", nargs="+", metavar="ID", help="one or more installed packages")
    sub.add_argument("--json", action="store_true")


def _setup(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--node", metavar="VERSION", help="download this Node version (e.g. 22.20.0 or 22)"
    )
    sub.add_argument(
        "--mirror",
        metavar="URL",
        help="where --node downloads from (a mirror of https://nodejs.org/download/release)",
    )
    sub.add_argument(
        "--openclaw",
        action="store_true",
        help="also install the OpenClaw SDK that OpenClaw plugins need (by default only when "
        "an installed package needs it)",
    )
    sub.add_argument("--all", action="store_true", help="install every optional set (--openclaw)")
    sub.add_argument("--json", action="store_true")


def _migrate(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("source", metavar="PKG", help="folder, tarball, npm spec, git URL or id")
    sub.add_argument(
        "--to",
        required=True,
        choices=MIGRATE_TARGETS,
        dest="target",
        help="nanobot: an Agent Plugin for released nanobot (0.3.x); nanobot-manifest: the "
        "unreleased nanobot.extension.json format; gemini-extension: a Gemini CLI extension; "
        "codex-plugin: a Codex plugin",
    )
    sub.add_argument("--out", required=True, metavar="DIR", help="where to write (empty)")
    sub.add_argument(
        "--load",
        action="store_true",
        help="load the package once in a throwaway sandbox to see its tools, commands, hooks",
    )
    sub.add_argument("--force", action="store_true", help="replace what DIR holds")
    sub.add_argument(
        "--gateway-command",
        metavar="CMD",
        help="how the output starts the gateway (default: this installation's `gateway`)",
    )
    sub.add_argument("--json", action="store_true")


def _audit(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "sources",
        nargs="*",
        metavar="SRC",
        help="folder, tarball, npm spec, git URL or installed id",
    )
    sub.add_argument(
        "--from",
        dest="from_file",
        metavar="FILE",
        help="read sources from FILE, one a line (# comments)",
    )
    sub.add_argument(
        "--format", choices=AUDIT_FORMATS, default="text", help="report format (default: text)"
    )
    sub.add_argument(
        "--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    sub.add_argument(
        "--fail-on", action="append", default=[], metavar="WHAT[:HOST]",
        help=f"exit 1 if any package has it: {', '.join(AUDIT_FAIL_ON)}; HOST one of "
        f"{', '.join(AUDIT_HOSTS)} (default gateway); repeatable or comma-separated",
    )  # fmt: skip
    sub.add_argument(
        "--load",
        action="store_true",
        help="also load each package in a throwaway sandbox and record what it registers "
        "(runs its code)",
    )
    sub.add_argument("--yes", "-y", action="store_true", help="confirm --load without asking")


def _lock(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--out", metavar="PATH", help="where to write (default ./gateway.lock)")
    sub.add_argument("--json", action="store_true")


def _sync(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--lockfile", metavar="PATH", help="the lockfile (default ./gateway.lock)")
    sub.add_argument(
        "--frozen", action="store_true", help="resolve nothing; fail unless the home matches"
    )
    sub.add_argument(
        "--accept", action="store_true", help="apply its trust, grants, enabled state, groups"
    )
    sub.add_argument("--json", action="store_true")


_SETUP = (
    "Make this installation's private Node environment (from the bundled Node, "
    "offline, unless --node asks for another version) and install the Node sidecar's "
    "modules (npm ci --ignore-scripts). Safe to run again."
)
_VERBS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], str | None]] = {
    "list": ("tools, commands, hooks, skills, prompts", _list, None),
    "call": ("run one turn around one tool call", _call, None),
    "command": ("run a slash command", _command, None),
    "shell": ("interactive shell", _shell, None),
    "trust": ("trust installed packages, or workspace folders", _trust_targets, None),
    "untrust": ("stop trusting installed packages, or workspace folders", _targets, None),
    "install": ("install a package (local folder, git, npm)", add_install, None),
    "inspect": (
        "a package's metadata (runs nothing)",
        lambda sub: _target(sub, "ID|PATH"),
        None,
    ),
    "permissions": ("show, grant or revoke permissions", add_permissions, None),
    "enable": ("enable packages", _package_ids, None),
    "disable": ("disable packages", _package_ids, None),
    "uninstall": ("remove packages", _package_ids, None),
    "group": (
        "let packages share one process (each runs alone otherwise)",
        add_group,
        "Put installed packages in group NAME. Packages of one group whose runtime can host "
        "several, granted the same permissions, run in one process: cheaper, but nothing "
        "separates them there (`gateway docs security`). Every other package runs alone.",
    ),
    "ungroup": ("give packages their own process again", add_ungroup, None),
    "prefer": ("packages that win name clashes, in order, before install order", add_prefer, None),
    "status": (
        "every installed package: gates, active or not and why",
        _json,
        None,
    ),
    "setup": (
        "after pip install: the private Node environment and the Node sidecar's modules",
        _setup,
        _SETUP,
    ),
    "config": ("show or set a package's configuration", add_config, None),
    "serve": (
        "serve the packages to another host: an MCP server or a nimlet extension",
        serve_arguments,
        None,
    ),
    "migrate": ("make a package runnable by another host", _migrate, None),
    "audit": (
        "what runs where: every contribution by every host, with codes and reasons",
        _audit,
        None,
    ),
    "secret": ("set, unset or list a package's secrets", add_secret, None),
    "auth": (
        "sign in to a package's remote MCP servers (OAuth), or see and end those sign-ins",
        add_auth,
        "Sign in to the remote MCP servers ID connects to: the authorization URL is printed "
        "(and opened in a browser), the redirect comes back to a loopback listener, and the "
        "tokens are kept like secrets (never shown). --status shows the sign-ins, --sign-out "
        "forgets them. A running gateway restarts the package afterwards.",
    ),
    "policy": ("show, accept or revoke a package's policy rules", add_policy, None),
    "journal": ("interrupted at-most-once tool calls; resolve them", add_journal, None),
    "logs": ("what a package's processes wrote to stderr", add_logs, None),
    "token": ("create, list or revoke the bearer tokens of serve --http", token_arguments, None),
    "lock": ("write gateway.lock: every installed package, exactly", _lock, None),
    "sync": ("make the installed packages match gateway.lock", _sync, None),
    **TOOL_VERBS,
    "outdated": ("installed packages whose source has something newer", add_outdated, None),
    "update": ("reinstall packages whose source has something newer", add_update, None),
}
"""Each verb: its help line, what adds its arguments, its description (for its --help)."""
