"""``gateway list``, ``call``, ``command`` and ``shell``: the verbs that open a gateway on a
workspace (docs/cli.md). Imported only when one of them runs: it is the host."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import anyio

from gateway.base import (
    MAX_ARGUMENT_DEPTH,
    Diagnostic,
    GatewayConfig,
    by_package,
    did_you_mean,
    json_depth,
)
from gateway.cli._errors import BadArgument, Usage, error
from gateway.cli._output import diagnostics_table, print_json, print_run_diagnostics, summary, table
from gateway.cli._preferred import preference_json, preference_line, read_preference
from gateway.host import USER_MESSAGE_DROPPED, Gateway, UnknownCommand, open_gateway, package_of
from gateway.model import render_call
from gateway.sandbox import (
    become_subreaper,
    cleanup_cgroups,
    descendants,
    kill_descendants,
    reap_adopted,
)

__all__ = ["call_arguments", "run_verb", "run_workspace_verb"]


def run_workspace_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    if not args.workspace.is_dir():
        raise Usage(f"workspace {args.workspace} is not a folder")
    with _contained():
        if args.verb == "shell":
            from gateway.cli._shell import run_shell

            return anyio.run(run_shell, args, config)
        return anyio.run(_run, args, config)


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
        cleanup_cgroups()  # its packages' cgroups, now empty


def _open(args: argparse.Namespace, config: GatewayConfig) -> Any:
    return open_gateway(
        args.workspace,
        trust=True if args.trust else None,
        plan=args.plan,
        config=config,
        session_id=args.session,
    )


async def _run(args: argparse.Namespace, config: GatewayConfig) -> int:
    arguments = call_arguments(args)
    async with _open(args, config) as gateway:
        for note in getattr(args, "notes", ()):
            gateway.diagnostics.add(note)
        return await run_verb(gateway, args, arguments)


def call_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """``call``'s JSON_ARGS, checked before anything opens (``{}`` for the other verbs)."""
    if args.verb != "call":
        return {}
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as error:
        raise Usage(f"JSON_ARGS is not JSON: {error}") from None
    except RecursionError:
        raise BadArgument(f"JSON_ARGS nests deeper than {MAX_ARGUMENT_DEPTH} levels") from None
    if not isinstance(arguments, dict):
        raise Usage("JSON_ARGS must be a JSON object")
    if json_depth(arguments, stop_at=MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
        raise BadArgument(f"JSON_ARGS nests deeper than {MAX_ARGUMENT_DEPTH} levels")
    return arguments


_CALL_EVENTS = (
    "session_start",
    "turn_start",
    "tool_call",
    "tool_result",
    "turn_end",
    "session_end",
)
_COMMAND_EVENTS = ("session_start", "session_end")

Said = Callable[[], list[Diagnostic]]
"""The diagnostics a verb reports: the gateway's (a warm session's: its load's and this
run's)."""


async def run_verb(
    gateway: Gateway,
    args: argparse.Namespace,
    arguments: dict[str, Any],
    said: Said | None = None,
) -> int:
    """``list``, ``call`` or ``command`` on an open gateway; the exit code."""
    said = said or (lambda: list(gateway.diagnostics))
    if args.verb == "list" and args.tokens:
        from gateway.cli._tool_tokens import print_tool_tokens

        print_tool_tokens(gateway, args.json)
        return 0
    if args.verb == "list":
        _list(gateway, args.json, args.strict, said)
        return 0
    if args.verb == "call":
        return await _call(gateway, args.tool, arguments, args, said)
    return await _command(gateway, args.name, " ".join(args.arguments), args, said)


def _list(gateway: Gateway, as_json: bool, strict: bool, said: Said) -> None:
    tools = [
        {**tool.describe(), **({"display": tool.display} if tool.display else {})}
        for tool in gateway.tools()
    ]
    commands = [
        {"name": c.name, "description": c.description, "owner": c.owner}
        for c in gateway.registry.commands()
    ]
    hooks = [{"event": h.event, "owner": h.owner} for h in gateway.registry.hooks()]
    flags = [
        {"name": f.name, "description": f.description, "type": f.type, "default": f.default,
         "owner": f.owner}
        for f in gateway.registry.flags()
    ]  # fmt: skip
    skills = [
        {"name": s.name, "description": s.description, "path": str(s.path)}
        for s in gateway.discovery.skills
    ]
    prompts = [
        {"name": p.name, "description": p.description, "path": str(p.path)}
        for p in gateway.discovery.prompts
    ]
    listing = {"tools": tools, "commands": commands, "skills": skills, "prompts": prompts}
    # Imported here: only `list` checks what the model will read (its patterns: ~3 ms).
    from gateway.cli._flagged import flag_listing

    roots = {status.package.record.path: status.id for status in gateway.packages}
    shown = by_package([*said(), *flag_listing(listing, strict, roots)])
    diagnostics = [d.to_dict() for d in shown]
    preferred = read_preference(gateway.config)
    installed = {status.id for status in gateway.packages}
    if as_json:
        print_json(
            {"workspace": str(gateway.workspace), "trusted": gateway.trusted, "plan": gateway.plan,
             "tools": tools, "commands": commands, "flags": flags, "hooks": hooks,
             "skills": skills, "prompts": prompts,
             "preferred": preference_json(preferred, installed), "diagnostics": diagnostics}
        )  # fmt: skip
        return
    out = sys.stdout
    trust = "trusted" if gateway.trusted else "not trusted"
    print(f"workspace {gateway.workspace} ({trust}{', plan mode' if gateway.plan else ''})")
    print(f"{preference_line(preferred, installed)}\n")
    # A description is summed up by its first line; --json keeps it whole.
    tool_rows = [
        (t["name"], t["owner"], ",".join(t["capabilities"]), summary(t["description"]))
        for t in tools
    ]
    table("Tools", ("name", "owner", "capabilities", "description"), tool_rows, out)
    print(file=out)
    command_rows = [("/" + c["name"], c["owner"], summary(c["description"])) for c in commands]
    table("Commands", ("command", "owner", "description"), command_rows, out)
    print(file=out)
    if flags:
        flag_rows = [("--" + f["name"], f["owner"], f["type"], f["description"]) for f in flags]
        table("Flags", ("flag", "owner", "type", "description"), flag_rows, out)
        print(file=out)
    table("Hooks", ("event", "owner"), [(h["event"], h["owner"]) for h in hooks], out)
    print(file=out)
    skill_rows = [(s["name"], summary(s["description"])) for s in skills]
    table("Skills", ("name", "description"), skill_rows, out)
    print(file=out)
    prompt_rows = [(p["name"], summary(p["description"])) for p in prompts]
    table("Prompts", ("name", "description"), prompt_rows, out)
    print(file=out)
    diagnostics_table(shown, out)


async def _call(
    gateway: Gateway, name: str, arguments: dict[str, Any], args: argparse.Namespace, said: Said
) -> int:
    as_json = bool(args.json)
    tool = gateway.registry.tool(name)
    if tool is None:
        meant = did_you_mean(name, [t.name for t in gateway.registry.tools()])
        return _unknown(f"unknown tool {name!r}{meant} (see `gateway list`)", args, said)
    if not as_json and not args.quiet:
        gateway.progress_listener = _print_progress
        for line in render_call(tool.display, arguments):
            print(line)
    # What the turn will reach starts together, not one start after another.
    await gateway.start_for(() if gateway.plan else _CALL_EVENTS, [name])
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
             "diagnostics": [d.to_dict() for d in said()]}
        )  # fmt: skip
        return 1 if result.is_error else 0
    label = "blocked" if result.blocked else ("error" if result.is_error else "ok")
    print(f"[{label}] {result.content}")
    for part in result.parts or []:
        if part.get("type") == "image":
            print(f"[image {part.get('mime_type')} {part.get('path') or 'inline'}]")
    if not args.quiet:
        _print_effects(gateway)
    # Info notes (the same ones on every run) stay in `gateway list` and --json.
    print_run_diagnostics(said(), _called(tool.owner), quiet=args.quiet, verbose=args.verbose)
    return 1 if result.is_error else 0


async def _command(
    gateway: Gateway, name: str, arguments: str, args: argparse.Namespace, said: Said
) -> int:
    as_json = bool(args.json)
    name = name.removeprefix("/")
    command = gateway.registry.command(name)
    if command is None:
        names = ["/" + c.name for c in gateway.registry.commands()]
        meant = did_you_mean("/" + name, names)
        return _unknown(f"unknown command /{name}{meant} (see `gateway list`)", args, said)
    await gateway.start_for(() if gateway.plan else _COMMAND_EVENTS, [command.name])
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
             "diagnostics": [d.to_dict() for d in said()]}
        )  # fmt: skip
        return 1 if outcome.error else 0
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
    if not args.quiet:
        _print_effects(gateway)
    print_run_diagnostics(said(), _called(command.owner), quiet=args.quiet, verbose=args.verbose)
    return 1 if outcome.error else 0


def _called(owner: str) -> tuple[str, str]:
    """The names a called tool's or command's package goes by in diagnostics: its owner,
    and the package it stands for (``ID:tools``, the gateway's per-call tools, are ID's)."""
    return owner, package_of(owner)


def _unknown(message: str, args: argparse.Namespace, said: Said) -> int:
    """An unknown tool or command, said once: with ``--json`` every diagnostic; else the
    run's own warnings and one line for the packages' (``-v``: each of them; ``-q``: the
    run's errors only) — another package's warnings are no reason for this one."""
    if args.json:
        error(args, message, said())
        return 1
    error(args, message)
    print_run_diagnostics(said(), (), quiet=args.quiet, verbose=args.verbose)
    return 1


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


def _print_effects(gateway: Gateway) -> None:
    for key, text in gateway.session.statuses.items():
        print(f"status {key}: {text}")
    for key, lines in gateway.session.widgets.items():
        print(f"widget {key}:")
        for line in lines:
            print(f"  {line}")
    for extension, notification in gateway.session.notifications:
        print(f"{notification.level} ({extension}): {notification.message}")
