#!/usr/bin/env python3
"""The nimlet spec's notes extension, plus a counter kept in session entries."""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


send(
    {
        "type": "register",
        "commands": [{"name": "note", "description": "Append a note to NOTES.md"}],
        "tools": [
            {
                "name": "save_note",
                "description": "Save a note about the current work.",
                "input_schema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
                "capabilities": ["read"],
            }
        ],
    }
)

saved = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")

    if kind == "command":
        with open("NOTES.md", "a") as handle:
            handle.write(message["arguments"] + "\n")
        send({"type": "response", "id": message["id"], "message": "Noted."})

    elif kind == "tool":
        with open("NOTES.md", "a") as handle:
            handle.write(message["arguments"]["text"] + "\n")
        saved += 1
        send(
            {
                "type": "response",
                "id": message["id"],
                "content": "Saved the note.",
                "status": {"key": "notes", "text": "NOTES.md updated"},
                "entry": {"saved": saved},
            }
        )

    elif kind == "event":
        send({"type": "response", "id": message["id"]})

    elif kind == "shutdown":
        break
