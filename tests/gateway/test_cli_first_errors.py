"""What a new user meets first on the command line: --version, wrapped tables with hints,
JSON on every --json failure, notifications of a command, info notes kept out of each call's
output. Each command line runs as ``python -m gateway`` would, in this process
(tests/_cli.py); the extensions are real processes."""

from __future__ import annotations

import json
import sys
import textwrap
from importlib.metadata import version
from typing import Any

from tests.gateway.test_cli import gateway, gateway_json, ws

NOTIFYING_EXTENSION = textwrap.dedent(
    """
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    send({"type": "register", "commands": [{"name": "hello", "description": "greets"}],
          "tools": [{"name": "quiet", "description": "does nothing",
                     "input_schema": {"type": "object"}}], "events": []})
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            # Answers every line, `initialize` too, as the nimlet spec's guard example does.
            send({"type": "response", "id": ""})
            continue
        if message["type"] == "shutdown":
            break
        if message["type"] == "command":
            send({"type": "response", "id": message["id"], "message": "hello there",
                  "notification": {"level": "info", "message": "said hello"}})
        elif message["type"] == "tool":
            send({"type": "response", "id": message["id"], "content": "done"})
        else:
            send({"type": "response", "id": message["id"]})
    """
)


def _notifier(workspace: Any) -> None:
    folder = workspace.root / ".nimlet" / "extensions" / "notifier"
    folder.mkdir(parents=True)
    (folder / "extension.py").write_text(NOTIFYING_EXTENSION)
    manifest = {"name": "notifier", "command": [sys.executable, str(folder / "extension.py")]}
    (folder / "extension.json").write_text(json.dumps(manifest))


def test_version_names_the_installed_distribution(workspace):
    done = gateway(workspace, "--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"gateway {version('extension-gateway')}"


def test_command_json_keeps_the_notifications(workspace):
    _notifier(workspace)
    out = gateway_json(workspace, "command", "hello", "--workspace", ws(workspace), "--trust")
    assert out["message"] == "hello there"
    assert out["notifications"] == [
        {"extension": "notifier", "level": "info", "message": "said hello"}
    ]


def test_call_json_prints_json_when_the_tool_is_unknown(workspace):
    _notifier(workspace)
    done = gateway(workspace, "call", "nope", "--workspace", ws(workspace), "--trust", "--json")
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["error"] == "unknown tool 'nope' (see `gateway list`)"
    assert isinstance(out["diagnostics"], list)


def test_call_json_prints_json_for_bad_arguments_too(workspace):
    done = gateway(workspace, "call", "quiet", "[1]", "--workspace", ws(workspace), "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout) == {
        "error": "JSON_ARGS must be a JSON object",
        "diagnostics": [],
    }


def test_command_json_prints_json_when_the_command_is_unknown(workspace):
    done = gateway(workspace, "command", "nope", "--workspace", ws(workspace), "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["error"] == "unknown command /nope (see `gateway list`)"


def test_an_info_note_is_not_repeated_in_every_calls_output(workspace):
    _notifier(workspace)  # answers `initialize` too: an info note each time it starts
    for _ in range(2):
        done = gateway(workspace, "call", "quiet", "--workspace", ws(workspace), "--trust")
        assert done.returncode == 0 and done.stdout.startswith("[ok] done")
        assert "reply without a request id" not in done.stderr
    out = gateway_json(workspace, "call", "quiet", "--workspace", ws(workspace), "--trust")
    assert [d["code"] for d in out["diagnostics"]] == ["protocol.unknown_id"]  # still reported


def test_list_wraps_long_messages_instead_of_cutting_them_and_shows_hints(workspace):
    workspace.add_extension(
        "ext", language="python", tools=["t"]
    )  # untrusted: not loaded, a note with a hint
    done = gateway(workspace, "list", "--workspace", ws(workspace))
    lines = done.stdout.splitlines()
    table = lines[lines.index("Diagnostics (1)") :]
    # wrapped at the width (100 off a terminal); a path is never split, even when longer
    assert all(len(line) <= 100 or str(workspace.root) in line for line in table), table
    assert len(table) > 3  # the message took more than one line
    text = " ".join(" ".join(table).split())
    message = f"workspace {workspace.root} is not trusted: its extensions, tools, skills and "
    assert message in text and "prompts were not loaded" in text and "…" not in text
    assert f"hint: gateway trust {workspace.root}" in text
