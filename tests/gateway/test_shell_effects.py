"""``gateway shell`` shows each status and widget as it changes: an extension that sets the
same status again (a Pi package's ticking status line) or clears a widget it never showed
adds no line."""

from __future__ import annotations

import json
import sys
import textwrap

from tests.gateway.test_cli import gateway, ws

_EXTENSION = textwrap.dedent(
    """
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    send({"type": "register", "commands": []})
    for update in [
        {"widget": {"key": "dock", "lines": []}},  # cleared before it was ever shown
        {"status": {"key": "peers", "text": "0 peers"}},
        {"status": {"key": "peers", "text": "0 peers"}},  # the same again
        {"status": {"key": "peers", "text": "0 peers"}},
        {"status": {"key": "peers", "text": "1 peer"}},
        {"widget": {"key": "dock", "lines": ["one"]}},
        {"widget": {"key": "dock", "lines": []}},  # cleared once shown: said
    ]:
        send({"type": "update", **update})
    for line in sys.stdin:
        if json.loads(line).get("type") == "shutdown":
            break
    """
)


def test_a_repeated_status_and_a_clear_of_what_was_never_shown_add_no_line(workspace) -> None:
    folder = workspace.root / ".nimlet/extensions/ticker"
    folder.mkdir(parents=True)
    (folder / "ticker.py").write_text(_EXTENSION)
    command = [sys.executable, str(folder / "ticker.py")]
    (folder / "extension.json").write_text(json.dumps({"name": "ticker", "command": command}))
    done = gateway(workspace, "shell", "--workspace", ws(workspace), "--trust", stdin="/quit\n")
    assert done.returncode == 0, done.stderr
    lines = [line.lstrip("> ").strip() for line in done.stdout.splitlines()]
    shown = [line for line in lines if line.startswith("[") or line == "one"]
    assert shown == [
        "[status ticker:peers] 0 peers",
        "[status ticker:peers] 1 peer",
        "[widget ticker:dock]",
        "one",
        "[widget ticker:dock] (cleared)",
    ], done.stdout


_STYLED = textwrap.dedent(
    """
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    send({"type": "register", "commands": []})
    send({"type": "update", "status": {"key": "mode", "text": "\\x1b[1;32mready\\x1b[0m"}})
    send({"type": "update", "widget": {"key": "dock", "lines": ["\\x1b[2mone\\x1b[0m\\x1b]0;t\\x07"]}})
    for line in sys.stdin:
        if json.loads(line).get("type") == "shutdown":
            break
    """
)


def test_a_status_styled_for_a_terminal_is_shown_without_its_colour(workspace) -> None:
    """A Pi package's status carries pi's theme's ANSI styling: shown as plain text, while
    any other control (here a window title) is still shown escaped."""
    folder = workspace.root / ".nimlet/extensions/styled"
    folder.mkdir(parents=True)
    (folder / "styled.py").write_text(_STYLED)
    command = [sys.executable, str(folder / "styled.py")]
    (folder / "extension.json").write_text(json.dumps({"name": "styled", "command": command}))
    done = gateway(workspace, "shell", "--workspace", ws(workspace), "--trust", stdin="/quit\n")
    assert done.returncode == 0, done.stderr
    lines = [line.lstrip("> ").strip() for line in done.stdout.splitlines()]
    assert "[status styled:mode] ready" in lines, done.stdout
    assert "one\\x1b]0;t\\x07" in lines, done.stdout
