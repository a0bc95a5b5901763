"""``gateway shell``: an interactive session over the same API the CLI uses.

``/command args`` runs a command, ``/call TOOL {json}`` calls a tool, other lines start a
turn (there is no model here, so only the turn's events run, with one ``context`` per
emulated model request). Status, widgets, notifications and tool progress are printed as
they happen; an extension's questions and nimlet's permission prompts are asked at the
prompt. A command's session action, ``reload`` or ``prompt`` is carried out; a ``now``
user message is taken as typed input.
"""

from __future__ import annotations

import argparse
import json
from collections import deque

import anyio

from gateway.base import GatewayConfig, counted
from gateway.cli._output import summary
from gateway.cli._shell_ui import (
    EffectView,
    StartupDiagnostics,
    approver,
    asker,
    show_diagnostic,
    show_progress,
)
from gateway.cli._terminal import Terminal
from gateway.host import Gateway, UnknownCommand, UnknownTool, open_gateway, terminal_editor
from gateway.model import AgentLink, SessionActionError, SessionNotFound, UserMessage, render_call

HELP = """\
/help                 this help
/tools                tools offered now
/commands             commands
/call TOOL [JSON]     call a tool (one turn around it)
/status               status lines and widgets
/diagnostics          every diagnostic so far (start-up warnings included)
/reload               restart extensions
/new                  start a new session
/resume ID            resume a session
/fork N               a new session with what came before the N-th user message
/compact [TEXT]       run compaction hooks
/trust on|off         trust the workspace for this shell (restarts extensions)
/yolo on|off          skip (or ask again) the permission prompts of extension tools
/permissions [clear]  remembered permission grants (clear: the project's)
/quit                 leave
/NAME ARGS            run an extension or prompt command
anything else         a user message: input, before_agent_start, one turn (no model is attached)"""

NOT_FROM_EXTENSIONS = frozenset({"quit", "exit", "trust", "yolo", "permissions"})
"""Built-ins a ``now`` user message may not run: leaving, trust and permissions stay the
user's (nimlet runs any typed command; the gateway keeps these out of an extension's hands)."""
MODEL_REQUESTS_PER_TURN = 32
"""The shell's emulated turn stops after this many model requests (follow-ups that keep
coming)."""
SESSION_END_WITHIN = 5.0
"""Seconds the packages have to answer the session's end when the shell is left."""


class _Inbox:
    """``now`` user messages waiting to be taken as typed input."""

    def __init__(self) -> None:
        self._items: deque[UserMessage] = deque()
        self._ready = anyio.Event()

    def put(self, message: UserMessage) -> None:
        self._items.append(message)
        self._ready.set()

    def take(self) -> UserMessage | None:
        if not self._items:
            return None
        item = self._items.popleft()
        if not self._items:
            self._ready = anyio.Event()
        return item

    async def wait(self) -> None:
        await self._ready.wait()


async def run_shell(args: argparse.Namespace, config: GatewayConfig) -> int:
    terminal = Terminal()
    inbox = _Inbox()
    ask_permissions = args.permissions == "ask" or (
        args.permissions is None and terminal.interactive
    )
    link = AgentLink(
        # No model is attached: provider and model stay empty; the messages are the ones
        # this shell recorded in the session.
        edit_text=terminal_editor if terminal.interactive else None,
        approve=approver(terminal) if ask_permissions else None,
        # A policy rule's approval is asked whenever someone can answer (a terminal, or
        # --permissions ask): --permissions allow skips nimlet's prompts, not the rules
        # the user adopted.
        approve_policy=approver(terminal)
        if terminal.interactive or args.permissions == "ask"
        else None,
        submit_input=inbox.put,
    )
    # What the extensions say while they start is summed up once they have (-v: all of it).
    startup = StartupDiagnostics(verbose=bool(getattr(args, "verbose", False)))
    async with open_gateway(
        args.workspace,
        trust=True if args.trust else None,
        plan=args.plan,
        config=config,
        ui=asker(terminal),
        session_id=args.session,
        on_effect=EffectView().show,
        on_diagnostic=startup.add,
        agent=link,
    ) as gateway:
        gateway.progress_listener = show_progress(terminal)
        terminal.say(f"gateway shell — workspace {gateway.workspace}, session {gateway.session.id}")
        terminal.say("type /help for commands")
        startup.release()
        try:
            await gateway.start_session()
            await _read_eval(gateway, terminal, inbox)
        finally:
            # Ctrl-C cancels the shell's task, at the prompt or while the session starts: the
            # packages still see the session end (as `serve` does when it stops), bounded so
            # a package that does not answer cannot hold the exit.
            with anyio.CancelScope(shield=True), anyio.move_on_after(SESSION_END_WITHIN):
                await gateway.end_session()
    return 0


async def _read_eval(gateway: Gateway, terminal: Terminal, inbox: _Inbox) -> None:
    while True:
        source, line = await _next_input(terminal, inbox)
        if line is None:
            return
        if not line.strip():
            continue
        if not await _handle(gateway, line.strip(), from_extension=source is not None):
            return


async def _next_input(terminal: Terminal, inbox: _Inbox) -> tuple[str | None, str | None]:
    """The next thing to run: a delivered ``now`` message (with the extension that sent
    it) or a typed line (``None`` at the end of input)."""
    delivered = inbox.take()
    if delivered is None:
        typed: list[str | None] = []
        async with anyio.create_task_group() as race:

            async def read() -> None:
                typed.append(await terminal.line("> "))
                race.cancel_scope.cancel()

            async def wait() -> None:
                await inbox.wait()
                race.cancel_scope.cancel()

            race.start_soon(read)
            race.start_soon(wait)
        if typed:
            return None, typed[0]
        delivered = inbox.take()
        terminal.say()
    assert delivered is not None
    terminal.say(f"(input from {delivered.extension}: {delivered.content})")
    return delivered.extension, delivered.content


async def _handle(gateway: Gateway, line: str, *, from_extension: bool = False) -> bool:
    """Run one input line; False ends the shell."""
    if not line.startswith("/"):
        await _user_message(gateway, line, source="extension" if from_extension else "interactive")
        return True
    name, _, rest = line[1:].partition(" ")
    rest = rest.strip()
    verb = name.lower()
    if from_extension and verb in NOT_FROM_EXTENSIONS:
        print(f"(an extension may not run /{verb}; ignored)")
        return True
    if verb in ("quit", "exit"):
        return False
    if verb == "help":
        print(HELP)
    elif verb == "tools":  # one line each, as `gateway list`'s table: its description's first
        tools = gateway.tools()
        column = max((len(tool.name) for tool in tools), default=0)
        for tool in tools:
            print(f"  {tool.name:{column}}  {','.join(tool.capabilities):20} "
                  f"{summary(tool.description)}")  # fmt: skip
    elif verb == "commands":
        commands = gateway.registry.commands()
        column = max((len(command.name) for command in commands), default=0)
        for command in commands:
            print(f"  /{command.name:{column}}  {summary(command.description)}")
    elif verb == "status":
        for key, text in gateway.session.statuses.items():
            print(f"  {key}: {text}")
        for key, lines in gateway.session.widgets.items():
            print(f"  {key}: " + " | ".join(lines))
        if not (gateway.session.statuses or gateway.session.widgets):
            print("  (no status or widget set by an extension)")
    elif verb == "diagnostics":
        for diagnostic in gateway.diagnostics:
            show_diagnostic(diagnostic)
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
    elif verb == "fork":
        try:
            await gateway.fork(int(rest) if rest.isdigit() else 0)
        except SessionActionError as error:
            print(f"error: {error}")
        else:
            print(f"forked session {gateway.session.id}")
    elif verb == "compact":
        result = await gateway.compact(instruction=rest)
        print(f"compaction: {result.message}")
    elif verb == "trust":
        await gateway.set_trust(rest.lower() in ("on", "yes", "true", ""))
        print(f"workspace {'trusted' if gateway.trusted else 'not trusted'}; extensions restarted")
    elif verb == "yolo":
        gateway.agent.yolo = rest.lower() != "off"
        print("permission prompts " + ("skipped (yolo)" if gateway.agent.yolo else "asked"))
    elif verb == "permissions":
        if rest == "clear":
            gateway.permissions.clear_project()
        for scope, keys in gateway.permissions.grants().items():
            print(f"  {scope}: {', '.join(keys) or '(none)'}")
    else:
        await _command(gateway, name, rest)
    return True


async def _call(gateway: Gateway, rest: str) -> None:
    tool, _, raw = rest.partition(" ")
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as error:
        print(f"error: arguments are not JSON: {error}")
        return
    if not isinstance(arguments, dict):
        print("error: arguments must be a JSON object")
        return
    entry = gateway.registry.tool(tool)
    for line in render_call(entry.display if entry is not None else None, arguments):
        print(f"  {line}")
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
    for part in result.parts or []:
        if part.get("type") == "image":
            print(f"  [image {part.get('mime_type')} {part.get('path') or 'inline'}]")


async def _command(gateway: Gateway, name: str, arguments: str) -> None:
    """nimlet's order: side effects (already shown), the message, then one of the session
    action, a reload, or the prompt."""
    try:
        outcome = await gateway.run_command(name, arguments)
    except UnknownCommand:
        print(f"error: unknown command /{name} (try /help)")
        return
    if outcome.message:
        print(outcome.message)
    if outcome.error:
        print(f"Extension command failed: {outcome.error}")
    elif outcome.session is not None:
        try:
            editor_text = await gateway.apply_session_action(outcome.session)
        except SessionActionError as error:
            print(f"Extension command failed: {error}")
            return
        print(f"session {outcome.session.action}: now in session {gateway.session.id}")
        if editor_text:
            # There is no composer to fill: show it, unsubmitted.
            print(f"(text for the composer, not sent: {editor_text})")
    elif outcome.reload:
        await gateway.reload()
        print(f"reloaded: {len(gateway.processes)} extensions running")
    elif outcome.prompt:
        print(f"prompt: {outcome.prompt}")
        await _user_message(gateway, outcome.prompt, source="extension")


async def _user_message(gateway: Gateway, text: str, source: str = "interactive") -> None:
    """What an agent does with a user message, minus the model: ``input`` (which may
    transform or handle it), ``before_agent_start``, then one turn in which each emulated
    model request delivers steering and runs ``context``, and follow-ups keep the run
    going."""
    decided = await gateway.submit_input(text, source)
    if decided.action == "handled":
        print(f"(handled by {decided.handled_by}: the agent does not run)")
        return
    if decided.action == "transform":
        print(f"(input transformed: {decided.text})")
    start = await gateway.before_agent_start(decided.text, "")
    for injected in start.messages:
        print(f"(message injected by an extension: {injected})")
    gateway.session.add_user_message(decided.text)
    system = [start.system_prompt] if start.system_prompt else []
    await gateway.start_turn()
    try:
        steering = gateway.take_steering("all")
        for request in range(1, MODEL_REQUESTS_PER_TURN + 1):
            for message in steering:
                print(f"(steering from {message.extension}: {message.content})")
            await _model_request(gateway, request, system)
            # The "final answer": steering that came meanwhile goes first, then follow-ups
            # keep the same run going.
            steering = gateway.take_steering("all")
            if steering:
                continue
            follow_ups = gateway.take_follow_ups("all")
            if not follow_ups:
                break
            for message in follow_ups:
                print(f"(follow-up from {message.extension}: {message.content})")
        else:
            print(f"(stopped after {MODEL_REQUESTS_PER_TURN} model requests)")
    finally:
        await gateway.end_turn()
    print("(no model is attached: the turn's events ran, nothing was sent anywhere)")


async def _model_request(gateway: Gateway, number: int, system: list[str]) -> None:
    messages = gateway.session.model_messages()
    context = await gateway.context(system, messages)
    added = len(context.messages) - len(messages)
    extra = len(context.system) - len(system)
    print(
        f"(model request {number}: {counted(len(context.messages), 'message')}, {added} added by "
        f"extensions; {counted(extra, 'system block')} added)"
    )
