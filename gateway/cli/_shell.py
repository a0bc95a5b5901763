"""``gateway shell``: an interactive session over the same API the CLI uses.

``/command args`` runs a command, ``/call TOOL {json}`` calls a tool, other lines start a
turn (there is no model here, so only the turn's events run). Status, widgets and
notifications are printed as they happen; ui_request questions are asked at the prompt.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio

from ..config import GatewayConfig
from ..diagnostics import Diagnostic
from ..host import Gateway, UnknownCommand, UnknownTool, open_gateway
from ..process import ExtensionProcess, UiAnswer
from ..protocol import UiRequest
from ..session import SessionEffect, SessionNotFound

HELP = """\
/help                 this help
/tools                tools offered now
/commands             commands
/call TOOL [JSON]     call a tool (one turn around it)
/status               status lines and widgets
/reload               restart extensions
/new                  start a new session
/resume ID            resume a session
/compact [TEXT]       run compaction hooks
/trust on|off         trust the workspace for this shell (restarts extensions)
/quit                 leave
/NAME ARGS            run an extension or prompt command
anything else         a user message: input, before_agent_start, one turn (no model is attached)"""


async def _read_line(prompt: str) -> str | None:
    def read() -> str | None:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        return None if line == "" else line.rstrip("\n")

    return await anyio.to_thread.run_sync(read, abandon_on_cancel=True)


async def _ask(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
    print(f"\n? {process.name} asks: {request.prompt}")
    for number, option in enumerate(request.options, start=1):
        print(f"  {number}. {option}")
    line = await _read_line("answer (number or text, empty to dismiss)> ")
    if not line:
        return UiAnswer(cancelled=True)
    if line.isdigit() and 1 <= int(line) <= len(request.options):
        return UiAnswer(answer=request.options[int(line) - 1])
    return UiAnswer(answer=line)


def _show_effect(effect: SessionEffect) -> None:
    if effect.kind == "status":
        print(f"  [status {effect.key}] {effect.value or '(cleared)'}")
    elif effect.kind == "widget":
        print(f"  [widget {effect.key}]" + ("" if effect.value else " (cleared)"))
        for line in effect.value:
            print(f"    {line}")
    elif effect.kind == "notification":
        print(f"  [{effect.value.level} from {effect.extension}] {effect.value.message}")


def _show_diagnostic(diagnostic: Diagnostic) -> None:
    print(f"  ({diagnostic.severity.value}) {diagnostic.message} [{diagnostic.code}]")


async def run_shell(args: argparse.Namespace, config: GatewayConfig) -> int:
    async with open_gateway(
        args.workspace,
        trust=True if args.trust else None,
        plan=args.plan,
        config=config,
        ui=_ask,
        session_id=args.session,
        on_effect=_show_effect,
        on_diagnostic=_show_diagnostic,
    ) as gateway:
        print(f"gateway shell — workspace {gateway.workspace}, session {gateway.session.id}")
        print("type /help for commands")
        await gateway.start_session()
        while True:
            line = await _read_line("> ")
            if line is None:
                break
            if not line.strip():
                continue
            if not await _handle(gateway, line.strip()):
                break
        await gateway.end_session()
    return 0


async def _handle(gateway: Gateway, line: str) -> bool:
    """Run one input line; False ends the shell."""
    if not line.startswith("/"):
        await _user_message(gateway, line)
        return True
    name, _, rest = line[1:].partition(" ")
    rest = rest.strip()
    verb = name.lower()
    if verb in ("quit", "exit"):
        return False
    if verb == "help":
        print(HELP)
    elif verb == "tools":
        for tool in gateway.tools():
            print(f"  {tool.name:24} {','.join(tool.capabilities):20} {tool.description}")
    elif verb == "commands":
        for command in gateway.registry.commands():
            print(f"  /{command.name:23} {command.description}")
    elif verb == "status":
        for key, text in gateway.session.statuses.items():
            print(f"  {key}: {text}")
        for key, lines in gateway.session.widgets.items():
            print(f"  {key}: " + " | ".join(lines))
    elif verb == "call":
        await _call(gateway, rest)
    elif verb == "reload":
        await gateway.reload()
        print(f"reloaded: {len(gateway.processes)} extensions running")
    elif verb == "new":
        await gateway.new_session()
        print(f"new session {gateway.session.id}")
    elif verb == "resume":
        try:
            await gateway.resume(rest)
        except SessionNotFound as error:
            print(f"error: {error}")
        else:
            print(f"resumed session {gateway.session.id}")
    elif verb == "compact":
        result = await gateway.compact(instruction=rest)
        print(f"compaction: {result.message}")
    elif verb == "trust":
        await gateway.set_trust(rest.lower() in ("on", "yes", "true", ""))
        print(f"workspace {'trusted' if gateway.trusted else 'not trusted'}; extensions restarted")
    else:
        await _command(gateway, name, rest)
    return True


async def _call(gateway: Gateway, rest: str) -> None:
    tool, _, raw = rest.partition(" ")
    try:
        arguments: Any = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as error:
        print(f"error: arguments are not JSON: {error}")
        return
    if not isinstance(arguments, dict):
        print("error: arguments must be a JSON object")
        return
    try:
        await gateway.start_turn()
        result = await gateway.call_tool(tool, arguments)
    except UnknownTool:
        print(f"error: unknown tool {tool!r}")
        return
    finally:
        await gateway.end_turn()
    label = "blocked" if result.blocked else ("error" if result.is_error else "ok")
    print(f"[{label}] {result.content}")


async def _command(gateway: Gateway, name: str, arguments: str) -> None:
    try:
        outcome = await gateway.run_command(name, arguments)
    except UnknownCommand:
        print(f"error: unknown command /{name} (try /help)")
        return
    if outcome.message:
        print(outcome.message)
    if outcome.prompt:
        print(f"prompt: {outcome.prompt}")
        await _user_message(gateway, outcome.prompt, source="extension")


async def _user_message(gateway: Gateway, text: str, source: str = "interactive") -> None:
    """What an agent does with a user message, minus the model: ``input`` (which may
    transform or handle it), ``before_agent_start``, then one turn."""
    decided = await gateway.submit_input(text, source)
    if decided.action == "handled":
        print(f"(handled by {decided.handled_by}: the agent does not run)")
        return
    if decided.action == "transform":
        print(f"(input transformed: {decided.text})")
    start = await gateway.before_agent_start(decided.text, "")
    for message in start.messages:
        print(f"(message injected by an extension: {message})")
    await gateway.start_turn()
    await gateway.end_turn()
    print("(no model is attached: the turn's events ran, nothing was sent anywhere)")
