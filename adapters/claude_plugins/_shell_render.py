"""A slash command with ``!`` shell lines rendered as Claude Code renders it: the typed
arguments fill the placeholders (``_commands.substitute``), then each ``!`` line the
command's ``allowed-tools`` allows (``_shell_lines``) runs, all of them at once, and its
output takes its place in the prompt; the output is not scanned again for placeholders or
lines. The plugin host calls this with its own runner (``sh -c`` as its child, so inside
the plugin's sandbox); nothing here starts a process.

Where the gateway differs from Claude Code, it errs on the closed side: the lines are found
in the command as written, never in the typed arguments (an argument holding
``!`cmd``` is text), and a line is checked against ``allowed-tools`` as the arguments made
it. A line not allowed is not run: ``[not run: …]`` stands in its place and
``claude.command_shell_line_refused`` says so (Claude Code would fail the command, or ask).
A line that exits non-zero gives its error output in its place (as Claude Code does) and
``claude.shell_line_failed``; one that times out or cannot start, a note saying why. Output
is kept to ``OUTPUT_LIMIT`` bytes (Claude Code's own Bash output limit) and decoded as
UTF-8 (bad bytes replaced); control characters stay in the prompt as they are, like the
rest of a package's text, and are escaped where the prompt reaches a terminal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

import anyio

from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._commands import ROOT, substitute
from adapters.claude_plugins._shell_lines import is_allowed, shell_spans
from adapters.claude_plugins._user_config import env_references
from gateway.base import Diagnostic

__all__ = [
    "DEFAULT_TIMEOUT",
    "OUTPUT_LIMIT",
    "TIMEOUT_VARIABLE",
    "LineRun",
    "Rendered",
    "RunLine",
    "ShellCommand",
    "render_command",
]

OUTPUT_LIMIT: Final = 30_000
"""Bytes kept of a line's output (each stream); a line that writes more is stopped."""
TIMEOUT_VARIABLE: Final = "GATEWAY_SHELL_LINE_TIMEOUT"
DEFAULT_TIMEOUT: Final = 20.0
"""Seconds each line may take (they run at once): under the plugin host's reply timeout."""
_SHOWN: Final = 200


@dataclass(frozen=True, slots=True)
class LineRun:
    """What one line did: ``exit_code`` None when it did not finish by itself (``failure``
    says why); ``cut`` when it wrote more than the limit."""

    exit_code: int | None
    stdout: str
    stderr: str
    failure: str | None = None
    cut: bool = False


RunLine = Callable[[str], Awaitable[LineRun]]


@dataclass(frozen=True, slots=True)
class ShellCommand:
    """A command the plugin host serves: its body (front matter removed), the names its
    ``arguments`` front matter gives, and its ``allowed-tools`` Bash rules (None: any)."""

    name: str
    description: str
    body: str
    names: tuple[str, ...] = ()
    rules: tuple[str | None, ...] = ()
    options: dict[str, str] = field(default_factory=dict)
    """The plugin's non-sensitive options: ``${user_config.KEY}`` in the text. In a ``!``
    line it is ``${CLAUDE_PLUGIN_OPTION_KEY}``, read by the shell from the environment (a
    value never becomes shell syntax), as in a hook command."""


@dataclass(slots=True)
class Rendered:
    prompt: str
    diagnostics: list[Diagnostic] = field(default_factory=list)


async def render_command(
    command: ShellCommand, arguments: str, run_line: RunLine, *, root: str
) -> Rendered:
    """The command's prompt for the typed ``arguments``, its allowed lines run."""
    body, rules, options = command.body, list(command.rules), command.options
    pieces: list[str] = []
    lines: list[tuple[int, str]] = []
    cursor, used = 0, False
    for start, end, line in shell_spans(body):
        text, hit = substitute(
            body[cursor:start].replace(ROOT, root), arguments, command.names, options=options
        )
        pieces.append(text)
        line, line_hit = substitute(env_references(line), arguments, command.names)
        used = used or hit or line_hit
        lines.append((len(pieces), line.strip()))
        pieces.append("")
        cursor = end
    text, hit = substitute(
        body[cursor:].replace(ROOT, root), arguments, command.names, options=options
    )
    pieces.append(text)
    used = used or hit
    rendered = Rendered("")
    async with anyio.create_task_group() as group:
        for index, line in lines:
            if is_allowed(rules, line):
                group.start_soon(_run, command.name, line, run_line, pieces, index, rendered)
            else:
                pieces[index] = f"[not run: `{line}` is not allowed by allowed-tools]"
                rendered.diagnostics.append(
                    codes.COMMAND_SHELL_LINE_REFUSED(
                        f"/{command.name}: `!` line {_shown(line)} is not allowed by "
                        "allowed-tools (no Bash rule matches it); not run",
                        contribution=command.name,
                    )
                )
    prompt = "".join(pieces)
    if not used and arguments.strip():
        prompt = f"{prompt}\n\nARGUMENTS: {arguments}"
    rendered.prompt = prompt
    rendered.diagnostics.sort(key=lambda d: d.message)  # not by which line finished first
    return rendered


async def _run(
    name: str, line: str, run_line: RunLine, pieces: list[str], index: int, into: Rendered
) -> None:
    run = await run_line(line)
    shown = _shown(line)
    if run.cut:
        kept = (run.stdout or run.stderr).rstrip("\n")
        pieces[index] = f"{kept}\n[output cut at {OUTPUT_LIMIT} bytes]"
        into.diagnostics.append(
            codes.SHELL_LINE_OUTPUT_CUT(
                f"/{name}: `!` line {shown} wrote more than {OUTPUT_LIMIT} bytes; stopped, "
                "its output cut",
                contribution=name,
            )
        )
        return
    if run.failure is not None:
        kept = (run.stdout + run.stderr).rstrip("\n")
        pieces[index] = f"{kept}\n[`{line}` {run.failure}]" if kept else f"[`{line}` {run.failure}]"
        why = run.failure
    elif run.exit_code != 0:
        kept = (run.stderr or run.stdout).rstrip("\n")
        pieces[index] = kept or f"[`{line}` exited with status {run.exit_code}]"
        why = f"exited with status {run.exit_code}: {_first_line(run.stderr)}"
    else:
        pieces[index] = run.stdout.rstrip("\n")
        return
    into.diagnostics.append(
        codes.SHELL_LINE_FAILED(f"/{name}: `!` line {shown} {why}", contribution=name)
    )


def _shown(line: str) -> str:
    return repr(line[:_SHOWN])


def _first_line(text: str) -> str:
    first = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return repr(first[:_SHOWN])
