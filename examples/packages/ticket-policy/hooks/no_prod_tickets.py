"""PreToolUse: a ticket about production goes through the on-call runbook instead.

Claude Code gives the hook the call as JSON on stdin; exit code 2 blocks it, and what the
hook wrote to stderr is the reason."""

import json
import sys

event = json.load(sys.stdin)
title = str(event.get("tool_input", {}).get("title", ""))
if "prod" in title.lower():
    print(
        "ticket-policy: production incidents go through the on-call runbook, not a ticket",
        file=sys.stderr,
    )
    sys.exit(2)
