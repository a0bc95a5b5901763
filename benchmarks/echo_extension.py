#!/usr/bin/env python3
"""The smallest useful nimlet extension: one `echo` tool. Shared by every benchmark."""

import json
import sys

write = sys.stdout.write
flush = sys.stdout.flush
write(
    json.dumps(
        {
            "type": "register",
            "commands": [],
            "tools": [
                {
                    "name": "echo",
                    "description": "Echo the text back.",
                    "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
                    "capabilities": ["read"],
                }
            ],
        }
    )
    + "\n"
)
flush()
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "tool":
        write(
            json.dumps(
                {
                    "type": "response",
                    "id": message["id"],
                    "content": message["arguments"].get("text", ""),
                }
            )
            + "\n"
        )
        flush()
    elif kind == "shutdown":
        break
