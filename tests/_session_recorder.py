"""A nimlet extension that answers every event at once and writes down every message it got
(``events.txt`` in its own data folder): what a test reads to see that a session's end
reached a package before it was shut down, however the gateway was stopped."""

from __future__ import annotations

import sys
from pathlib import Path

from gateway.sandbox import package_dirs
from tests.adapters._helpers import write_tree
from tests.serve._helpers import install_ready

__all__ = ["install_session_recorder", "recorded"]

_SCRIPT = """#!@PYTHON@
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
send({"type": "register", "tools": [], "commands": [], "events": ["session_start",
      "session_end"]})
for line in sys.stdin:
    message = json.loads(line)
    with open(@EVENTS@, "a") as handle:
        handle.write(message.get("event", message["type"]) + "\\n")
    if message["type"] == "shutdown":
        break
    if message["type"] == "event":
        send({"type": "response", "id": message["id"]})
"""


def install_session_recorder(home: Path, base: Path, name: str = "ender") -> Path:
    """The recorder installed in ``home`` from a folder under ``base``, granted, trusted and
    enabled; the file its messages are written to."""
    events = package_dirs(home, name)[0] / "events.txt"
    script = _SCRIPT.replace("@PYTHON@", sys.executable).replace("@EVENTS@", repr(str(events)))
    folder = base / name
    write_tree(folder, {"extension.json": {"name": name, "command": ["./ext.py"]},
                        "ext.py": script})  # fmt: skip
    (folder / "ext.py").chmod(0o755)
    install_ready(home, folder)
    return events


def recorded(events: Path) -> list[str]:
    """What the recorder was sent so far: each event's name, or the message's type."""
    return events.read_text().split() if events.exists() else []
