"""``gateway logs --server [-n N] [-f] [--json]``: the audit trail of ``gateway serve --mcp
--http`` (``GATEWAY_HOME/logs/audit.jsonl``, docs/serve.md "Audit log"), one line per tool
call: when, who, which tool of which package, the outcome, what hooks and policy decided,
how long it took. ``--json`` prints the lines as they are written (JSON Lines); ``-f``
follows the trail across its rotation, as ``gateway logs ID -f`` does."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._errors import Usage
from gateway.cli._logs import FOLLOW_INTERVAL, _Tail, run_logs

__all__ = ["describe", "run_logs_verb"]


def describe(line: str) -> str:
    """One audit line for a person; a line that is not an audit record, as it is."""
    try:
        record: Any = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    who = str(record.get("token") or "?")
    if record.get("subject"):
        who += f" (sub {record['subject']})"
    package = record.get("package") or "-"
    if record.get("ecosystem"):
        package += f" ({record['ecosystem']})"
    parts = [str(record.get("time", "?")), who, str(record.get("tool", "?")), package,
             str(record.get("outcome", "?")), f"{record.get('duration_ms', '?')} ms"]  # fmt: skip
    hooks = record.get("hooks")
    if isinstance(hooks, dict):
        for event, said in sorted(hooks.items()):
            if isinstance(said, dict):
                done = [key for key in ("blocked", "rewrote", "replaced") if said.get(key)]
                parts.append(f"{event}: {'/'.join(done) or 'asked'} ({said.get('asked', 0)})")
    policy = record.get("policy")
    if isinstance(policy, dict):
        parts.append(f"policy: {policy.get('decision', '?')} ({policy.get('rule', '?')})")
    if record.get("trace_id"):
        parts.append(f"trace {record['trace_id']}")
    return "  ".join(parts)


def run_logs_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``gateway logs``: a package's logs (``ID``), or the server's audit log (``--server``)."""
    if args.server == (args.id is not None):
        raise Usage("gateway logs takes a package ID, or --server (the audit log)")
    if not args.server:
        if args.json:
            raise Usage("--json is for gateway logs --server")
        return run_logs(args, config)
    from gateway.serve import AUDIT_LOG

    path = config.logs_dir / AUDIT_LOG
    tail = _Tail(path)
    if not path.is_file():
        print(f"gateway: no tool call logged yet (the audit log: {path})", file=sys.stderr)
    else:
        _show(tail.last_lines(args.lines), args.json)
    if not args.follow:
        return 0
    try:
        _follow(tail, args.json)
    except KeyboardInterrupt:
        sys.stdout.flush()
    return 0


def _show(text: str, as_json: bool) -> str:
    """Print the whole lines of ``text``; return what follows the last newline."""
    *lines, rest = text.split("\n")
    for line in lines:
        if line.strip():
            print(line if as_json else describe(line))
    sys.stdout.flush()
    return rest


def _follow(tail: _Tail, as_json: bool) -> None:
    pending = ""
    while True:
        pending = _show(pending + tail.read_new(), as_json)
        time.sleep(FOLLOW_INTERVAL)
