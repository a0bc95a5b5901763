#!/usr/bin/env python3
"""The nimlet spec's guard: denies network commands and counts them in a widget."""

import json
import sys

BLOCKED = ("curl ", "wget ", "nc ", "ssh ")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


send({"type": "register", "commands": [], "events": ["tool_call", "turn_end"]})

blocked = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "shutdown":
        break
    if "id" not in message:  # `initialize` and other notices: nothing to answer
        continue

    reply = {"type": "response", "id": message["id"]}
    if kind == "event" and message["event"] == "tool_call":
        arguments = message["payload"].get("arguments") or {}
        command = str(arguments.get("command", ""))
        if any(word in command for word in BLOCKED):
            blocked += 1
            reply.update(
                {
                    "allow": False,
                    "reason": "network commands are blocked in this project",
                    "widget": {"key": "guard", "lines": [f"blocked {blocked}"]},
                }
            )
    send(reply)
