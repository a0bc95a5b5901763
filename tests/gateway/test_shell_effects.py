"""``gateway shell`` shows each status and widget as it changes: an extension that sets the
same status again (a Pi package's ticking status line) or clears a widget it never showed
adds no line; what a package styled for a terminal is shown without its colour."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from tests.gateway.test_cli import gateway, ws

_EXTENSION = textwrap.dedent(
    """
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    send({"type": "register", "commands": []})
    for update in json.loads(sys.argv[1]):
        send({"type": "update", **update})
    for line in sys.stdin:
        if json.loads(line).get("type") == "shutdown":
            break
    """
)


def _shell_lines(workspace: Any, name: str, updates: list[dict[str, Any]]) -> list[str]:
    """The lines ``gateway shell`` prints for a nimlet extension ``name`` that sends
    ``updates`` once registered (then ``/quit``)."""
    folder: Path = workspace.root / ".nimlet/extensions" / name
    folder.mkdir(parents=True)
    (folder / f"{name}.py").write_text(_EXTENSION)
    command = [sys.executable, str(folder / f"{name}.py"), json.dumps(updates)]
    (folder / "extension.json").write_text(json.dumps({"name": name, "command": command}))
    done = gateway(workspace, "shell", "--workspace", ws(workspace), "--trust", stdin="/quit\n")
    assert done.returncode == 0, done.stderr
    return [line.lstrip("> ").strip() for line in done.stdout.splitlines()]


def test_a_repeated_status_and_a_clear_of_what_was_never_shown_add_no_line(workspace) -> None:
    lines = _shell_lines(workspace, "ticker", [
        {"widget": {"key": "dock", "lines": []}},  # cleared before it was ever shown
        {"status": {"key": "peers", "text": "0 peers"}},
        {"status": {"key": "peers", "text": "0 peers"}},  # the same again
        {"status": {"key": "peers", "text": "0 peers"}},
        {"status": {"key": "peers", "text": "1 peer"}},
        {"widget": {"key": "dock", "lines": ["one"]}},
        {"widget": {"key": "dock", "lines": []}},  # cleared once shown: said
    ])  # fmt: skip
    shown = [line for line in lines if line.startswith("[") or line == "one"]
    assert shown == [
        "[status ticker:peers] 0 peers",
        "[status ticker:peers] 1 peer",
        "[widget ticker:dock]",
        "one",
        "[widget ticker:dock] (cleared)",
    ], lines


def test_a_status_styled_for_a_terminal_is_shown_without_its_colour(workspace) -> None:
    """A Pi package's status carries pi's theme's ANSI styling: shown as plain text, while
    any other control (here a window title) is still shown escaped."""
    lines = _shell_lines(workspace, "styled", [
        {"status": {"key": "mode", "text": "\x1b[1;32mready\x1b[0m"}},
        {"widget": {"key": "dock", "lines": ["\x1b[2mone\x1b[0m\x1b]0;t\x07"]}},
    ])  # fmt: skip
    assert "[status styled:mode] ready" in lines, lines
    assert "one\\x1b]0;t\\x07" in lines, lines
