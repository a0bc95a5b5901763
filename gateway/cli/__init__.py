"""``gateway``: a thin command line over the Python API (see docs/cli.md).

Exit codes: 0 when a result was produced (an error result too), 1 for an unknown tool or
command or a failed operation, 2 for bad usage.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio

from gateway.base import (
    MAX_ARGUMENT_DEPTH,
    USER_MESSAGE_DROPPED,
    Diagnostic,
    GatewayConfig,
    HomeUnusable,
    Severity,
    _codes,
    ensure_home,
    gateway_version,
    json_depth,
)
from gateway.cli._audit import add_audit_verb, run_audit
from gateway.cli._config import add_config_verb, run_config
from gateway.cli._journal import add_journal_verb, run_journal
from gateway.cli._migrate import add_migrate_verb, run_migrate
from gateway.cli._output import (
    diagnostics_table,
    fail,
    print_diagnostics,
    print_json,
    refuse,
    table,
)
from gateway.cli._packages import VERBS as PACKAGE_VERBS
from gateway.cli._packages import add_package_verbs, installed_ids, run_package_verb, trust_package
from gateway.cli._policy import add_policy_verb, run_policy
from gateway.cli._secrets import add_secret_verb, run_secret
from gateway.cli._serve import add_serve_verb, run_serve
from gateway.cli._setup import add_setup_verb, run_setup_verb
from gateway.host import Gateway, UnknownCommand, open_gateway
from gateway.model import SessionNotFound, render_call
from gateway.packages.trust import StoreError, set_workspace_trust
from gateway.sandbox import (
    become_subreaper,
    descendants,
    kill_descendants,
    make_undumpable,
    reap_adopted,
)

__all__ = ["main"]


class _Usage(Exception):
    """Bad usage detected after parsing (exit 2)."""


def _error(args: argparse.Namespace, message: str, diagnostics: Sequence[Any] = ()) -> None:
    """A failure, said once: ``{"error", "diagnostics"}`` on stdout with ``--json`` (so a
    script always gets JSON), else one line on stderr and the warnings and errors."""
    if getattr(args, "json", False):
        print_json({"error": message, "diagnostics": [d.to_dict() for d in diagnostics]})
        return
    fail(message)
    print_diagnostics(list(diagnostics), least=Severity.WARNING)


class _BadArgument(Exception):
    """An argument that cannot be used (exit 2, with ``cli.invalid_argument``)."""


# Commands that only read the gateway's state: a missing home is not made for them.
_READ_ONLY_VERBS = ("inspect", "status", "audit")
# Positional arguments that name something: empty, each would mean the current folder.
_NAMED = ("target", "source", "id", "tool", "name", "call")
# Verbs over a package's settings and the gateway's state (no workspace, no processes).
_STATE_VERBS = {
    "config": run_config,
    "secret": run_secret,
    "policy": run_policy,
    "journal": run_journal,
}


def _common(parser: argparse.ArgumentParser, *, json_flag: bool = True) -> None:
    parser.add_argument("--workspace", help="workspace folder (default: the current one)")
    parser.add_argument("--trust", action="store_true", help="trust the workspace for this run")
    parser.add_argument("--plan", action="store_true", help="plan mode: read/user tools only")
    parser.add_argument("--session", metavar="ID", help="resume this session")
    if json_flag:
        parser.add_argument("--json", action="store_true", help="machine-readable output")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gateway", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"gateway {gateway_version()}")
    commands = parser.add_subparsers(dest="verb", required=True, metavar="COMMAND")

    listing = commands.add_parser("list", help="tools, commands, hooks, skills, prompts")
    _common(listing)

    call = commands.add_parser("call", help="run one turn around one tool call")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}", metavar="JSON_ARGS")
    _common(call)

    command = commands.add_parser("command", help="run a slash command")
    command.add_argument("name")
    command.add_argument("arguments", nargs="*", metavar="ARGS")
    _common(command)

    shell = commands.add_parser("shell", help="interactive shell")
    _common(shell, json_flag=False)
    shell.add_argument(
        "--permissions",
        choices=("ask", "allow"),
        default=None,
        help="permission prompts of extension tools: ask, or allow without asking "
        "(default: ask on a terminal, allow otherwise, as nimlet's headless modes do)",
    )

    for verb, text in (
        ("trust", "trust an installed package, or a workspace folder"),
        ("untrust", "stop trusting an installed package, or a workspace folder"),
    ):
        sub = commands.add_parser(verb, help=text)
        sub.add_argument("target", metavar="ID|DIR")
        sub.add_argument("--json", action="store_true")
    add_package_verbs(commands)
    add_setup_verb(commands)
    add_config_verb(commands)
    add_serve_verb(commands)
    add_migrate_verb(commands)
    add_audit_verb(commands)
    add_secret_verb(commands)
    add_policy_verb(commands)
    add_journal_verb(commands)
    return parser


def _check_arguments(args: argparse.Namespace) -> None:
    for name in _NAMED:
        value = getattr(args, name, None)
        if isinstance(value, str) and not value.strip():
            raise _BadArgument(f"{name.upper()} is empty; use `.` for the current folder")
    if not hasattr(args, "workspace"):
        return
    workspace = args.workspace
    if workspace is None:
        args.workspace = Path.cwd()
        return
    if not workspace.strip():
        raise _BadArgument("--workspace is empty; use `.` for the current folder")
    try:
        os.fsencode(workspace).decode("utf-8")
    except UnicodeDecodeError:
        raise _BadArgument(
            f"--workspace {os.fsencode(workspace)!r} is not valid UTF-8; sessions and the "
            "protocol carry paths as UTF-8 text"
        ) from None
    args.workspace = Path(workspace)


def _refusal(args: argparse.Namespace, diagnostic: Diagnostic) -> None:
    refuse(diagnostic, as_json=bool(getattr(args, "json", False)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # Same-user processes (the extensions among them) must not read our environment or
    # memory through /proc; see docs/security.md.
    make_undumpable()
    config = GatewayConfig()
    try:
        _check_arguments(args)
        ensure_home(config.home, write=args.verb not in _READ_ONLY_VERBS)
    except _BadArgument as error:
        _refusal(args, _codes.ARGUMENT_INVALID(str(error)))
        return 2
    except HomeUnusable as error:
        _refusal(args, error.diagnostic())
        return 1
    try:
        if args.verb in ("trust", "untrust"):
            return _trust(args, config)
        if args.verb in PACKAGE_VERBS:
            return run_package_verb(args, config)
        if args.verb == "setup":
            return run_setup_verb(args, config)
        if args.verb in _STATE_VERBS:
            return _STATE_VERBS[args.verb](args, config)
        if args.verb == "serve":
            return run_serve(args, config)
        if args.verb == "migrate":
            return run_migrate(args, config)
        if args.verb == "audit":
            return run_audit(args, config)
        if not args.workspace.is_dir():
            raise _Usage(f"workspace {args.workspace} is not a folder")
        with _contained():
            if args.verb == "shell":
                from gateway.cli._shell import run_shell

                return anyio.run(run_shell, args, config)
            return anyio.run(_run, args, config)
    except _Usage as error:
        _error(args, str(error))
        return 2
    except _BadArgument as error:
        _refusal(args, _codes.ARGUMENT_INVALID(str(error)))
        return 2
    except (SessionNotFound, StoreError) as error:
        _error(args, str(error))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`gateway list | head`); that is not an error.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
        return 0


@contextlib.contextmanager
def _contained() -> Iterator[None]:
    """Nothing a command started outlives it: as a child subreaper the gateway adopts what
    escaped its extensions' process groups (a grandchild that called ``setsid``), and
    every descendant that appeared during the command is killed and reaped at its end."""
    become_subreaper()
    before = set(descendants())
    try:
        yield
    finally:
        kill_descendants(exclude=before)
        reap_adopted(())


def _open(args: argparse.Namespace, config: GatewayConfig) -> Any:
    return open_gateway(
        args.workspace,
        trust=True if args.trust else None,
        plan=args.plan,
        config=config,
        session_id=args.session,
    )


async def _run(args: argparse.Namespace, config: GatewayConfig) -> int:
    if args.verb == "call":
        try:
            arguments = json.loads(args.arguments)
        except json.JSONDecodeError as error:
            raise _Usage(f"JSON_ARGS is not JSON: {error}") from None
        except RecursionError:
            raise _BadArgument(f"JSON_ARGS nests deeper than {MAX_ARGUMENT_DEPTH} levels") from None
        if not isinstance(arguments, dict):
            raise _Usage("JSON_ARGS must be a JSON object")
        if json_depth(arguments, stop_at=MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
            raise _BadArgument(f"JSON_ARGS nests deeper than {MAX_ARGUMENT_DEPTH} levels")
    async with _open(args, config) as gateway:
        if args.verb == "list":
            _list(gateway, args.json)
            return 0
        if args.verb == "call":
            return await _call(gateway, args.tool, arguments, args.json)
        return await _command(gateway, args.name, " ".join(args.arguments), args.json)
    raise AssertionError(args.verb)  # pragma: no cover


def _list(gateway: Gateway, as_json: bool) -> None:
    tools = [
        {**tool.describe(), **({"display": tool.display} if tool.display else {})}
        for tool in gateway.tools()
    ]
    commands = [
        {"name": c.name, "description": c.description, "owner": c.owner}
        for c in gateway.registry.commands()
    ]
    hooks = [{"event": h.event, "owner": h.owner} for h in gateway.registry.hooks()]
    skills = [
        {"name": s.name, "description": s.description, "path": str(s.path)}
        for s in gateway.discovery.skills
    ]
    prompts = [
        {"name": p.name, "description": p.description, "path": str(p.path)}
        for p in gateway.discovery.prompts
    ]
    diagnostics = [d.to_dict() for d in gateway.diagnostics]
    if as_json:
        print_json(
            {"workspace": str(gateway.workspace), "trusted": gateway.trusted, "plan": gateway.plan,
             "tools": tools, "commands": commands, "hooks": hooks, "skills": skills,
             "prompts": prompts, "diagnostics": diagnostics}
        )  # fmt: skip
        return
    out = sys.stdout
    trust = "trusted" if gateway.trusted else "not trusted"
    print(f"workspace {gateway.workspace} ({trust}{', plan mode' if gateway.plan else ''})\n")
    tool_rows = [
        (t["name"], t["owner"], ",".join(t["capabilities"]), t["description"]) for t in tools
    ]
    table("Tools", ("name", "owner", "capabilities", "description"), tool_rows, out)
    print(file=out)
    command_rows = [("/" + c["name"], c["owner"], c["description"]) for c in commands]
    table("Commands", ("command", "owner", "description"), command_rows, out)
    print(file=out)
    table("Hooks", ("event", "owner"), [(h["event"], h["owner"]) for h in hooks], out)
    print(file=out)
    table("Skills", ("name", "description"), [(s["name"], s["description"]) for s in skills], out)
    print(file=out)
    table("Prompts", ("name", "description"), [(p["name"], p["description"]) for p in prompts], out)
    print(file=out)
    diagnostics_table(list(gateway.diagnostics), out)


async def _call(gateway: Gateway, name: str, arguments: dict[str, Any], as_json: bool) -> int:
    if gateway.registry.tool(name) is None:
        _error(
            _as(as_json), f"unknown tool {name!r} (see `gateway list`)", list(gateway.diagnostics)
        )
        return 1
    if not as_json:
        gateway.progress_listener = _print_progress
        tool = gateway.registry.tool(name)
        for line in render_call(tool.display if tool is not None else None, arguments):
            print(line)
    await gateway.start_session()
    await gateway.start_turn()
    result = await gateway.call_tool(name, arguments)
    await gateway.end_turn()
    await gateway.end_session()
    _drop_user_messages(gateway)
    if as_json:
        print_json(
            {**result.to_dict(), "session_id": gateway.session.id,
             "statuses": gateway.session.statuses, "widgets": gateway.session.widgets,
             "notifications": _notifications(gateway),
             "diagnostics": [d.to_dict() for d in gateway.diagnostics]}
        )  # fmt: skip
        return 0
    label = "blocked" if result.blocked else ("error" if result.is_error else "ok")
    print(f"[{label}] {result.content}")
    for part in result.parts or []:
        if part.get("type") == "image":
            print(f"[image {part.get('mime_type')} {part.get('path') or 'inline'}]")
    _print_effects(gateway)
    # Info notes (the same ones on every run) stay in `gateway list` and --json.
    print_diagnostics(list(gateway.diagnostics), least=Severity.WARNING)
    return 0


async def _command(gateway: Gateway, name: str, arguments: str, as_json: bool) -> int:
    name = name.removeprefix("/")
    if gateway.registry.command(name) is None:
        _error(
            _as(as_json), f"unknown command /{name} (see `gateway list`)", list(gateway.diagnostics)
        )
        return 1
    await gateway.start_session()
    try:
        outcome = await gateway.run_command(name, arguments)
    except UnknownCommand:  # pragma: no cover - checked above
        return 1
    await gateway.end_session()
    _drop_user_messages(gateway)
    session = outcome.session.to_dict() if outcome.session is not None else None
    if as_json:
        print_json(
            {"message": outcome.message, "prompt": outcome.prompt, "session": session,
             "reload": outcome.reload, "error": outcome.error,
             "session_id": gateway.session.id, "statuses": gateway.session.statuses,
             "widgets": gateway.session.widgets, "notifications": _notifications(gateway),
             "diagnostics": [d.to_dict() for d in gateway.diagnostics]}
        )  # fmt: skip
        return 0
    if outcome.message:
        print(outcome.message)
    if outcome.error:
        print(f"Extension command failed: {outcome.error}")
    elif session is not None:
        print(f"session action (not carried out by a one-shot command): {json.dumps(session)}")
    elif outcome.reload:
        print("reload requested (not carried out by a one-shot command)")
    elif outcome.prompt:
        print(f"prompt: {outcome.prompt}")
    _print_effects(gateway)
    print_diagnostics(list(gateway.diagnostics), least=Severity.WARNING)
    return 0


def _print_progress(owner: str, item: dict[str, Any]) -> None:
    text = item.get("text")
    if isinstance(text, str) and text:
        for line in text.splitlines():
            print(f"… {line}", flush=True)


def _drop_user_messages(gateway: Gateway) -> None:
    """A one-shot run has no conversation to deliver ``user_message`` text into (nimlet's
    print and JSON modes drop it too); say so."""
    for message in gateway.pending_user_messages:
        gateway.diagnostics.add(
            USER_MESSAGE_DROPPED(
                f"{message.extension}: user_message ({message.deliver_as}) dropped: a one-shot "
                f"run has no conversation: {message.content[:120]!r}",
                package=message.extension,
            )
        )


def _notifications(gateway: Gateway) -> list[dict[str, str]]:
    return [
        {"extension": extension, "level": notification.level, "message": notification.message}
        for extension, notification in gateway.session.notifications
    ]


def _as(as_json: bool) -> argparse.Namespace:
    return argparse.Namespace(json=as_json)


def _print_effects(gateway: Gateway) -> None:
    for key, text in gateway.session.statuses.items():
        print(f"status {key}: {text}")
    for key, lines in gateway.session.widgets.items():
        print(f"widget {key}:")
        for line in lines:
            print(f"  {line}")
    for extension, notification in gateway.session.notifications:
        print(f"{notification.level} ({extension}): {notification.message}")


def _trust(args: argparse.Namespace, config: GatewayConfig) -> int:
    """An installed package id trusts the package; otherwise a folder is a workspace."""
    trusted = args.verb == "trust"
    if args.target in installed_ids(config):
        args.target_id = args.target
        return trust_package(args, config, trusted)
    target = Path(args.target)
    if not target.is_dir():
        if args.target.startswith(("/", "./", "../", "~")) or args.target in (".", ".."):
            raise _Usage(f"{args.target} is not a folder")
        fail(f"{args.target} is neither an installed package id nor a folder")
        return 1
    set_workspace_trust(config.home, target, trusted)
    resolved = str(target.resolve())
    if getattr(args, "json", False):
        print_json({"changed": "workspace", "workspace": resolved, "trusted": trusted})
    else:
        state = "trusted" if trusted else "no longer trusted"
        print(f"workspace {resolved} is {state}")
    return 0
