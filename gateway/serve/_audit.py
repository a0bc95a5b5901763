"""The audit trail of ``gateway serve --mcp --http``: ``GATEWAY_HOME/logs/audit.jsonl``.

One JSON object per line for every tool call a client made (docs/serve.md, "Audit log"):
who made it (the token's name, or the OAuth client and subject), which tool of which
package and ecosystem, what the gateway decided (the outcome, the ``tool_call`` /
``tool_result`` hooks asked and what they did, the adopted policy's decision), how long it
took, and the trace it belongs to. Never the arguments or the result, unless the operator
started the server with ``--audit-arguments`` (then both, each cut at ``_KEPT`` characters).

The file is private (0600 in a 0700 folder), written one line at a time by the server
alone, and rotated at ``LIMITS`` (``audit.jsonl.1`` … ``.5``), so it costs at most 60 MiB;
a line is never split between two files.
``gateway logs --server`` reads it. A full disk never fails a call: the line is lost.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types

from gateway.base.telemetry import CallTrail
from gateway.serve._tokens import TokenRecord
from gateway.wire import LogLimits, RotatingLog

__all__ = ["AUDIT_LOG", "AUDIT_VERSION", "LIMITS", "AuditLog", "AuditRecord", "result_text"]

AUDIT_LOG = "audit.jsonl"
AUDIT_VERSION = 1
LIMITS = LogLimits(max_bytes=10 * 1024 * 1024, keep=5)
_NAME_KEPT = 200
_KEPT = 4096


@dataclass(slots=True)
class AuditRecord:
    """One tool call, as the bridge saw it."""

    token: TokenRecord
    tool: str
    trail: CallTrail
    seconds: float
    session: str | None = None
    protocol: str | None = None
    trace_id: str | None = None
    arguments: Any = None
    result: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def _iso(now: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"


def result_text(result: types.CallToolResult | None) -> dict[str, Any] | None:
    """A call's result as the trail keeps it when asked to (``--audit-arguments``): its
    text, whether it is an error, and its structured content."""
    if result is None:
        return None
    text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
    found: dict[str, Any] = {"text": text, "is_error": bool(result.is_error)}
    if result.structured_content is not None:
        found["structured"] = result.structured_content
    return found


def _kept(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= _KEPT else {"cut": text[:_KEPT], "length": len(text)}


class AuditLog:
    def __init__(self, path: Path, *, arguments: bool = False, limits: LogLimits = LIMITS) -> None:
        self.path = path
        self.limits = limits
        self.arguments = arguments
        """Whether the arguments and results are written too (``--audit-arguments``)."""
        self._log: RotatingLog | None = None

    def line(self, record: AuditRecord, now: float | None = None) -> dict[str, Any]:
        """What is written for ``record``."""
        token, trail = record.token, record.trail
        oauth = token.name.startswith("oauth:")
        line: dict[str, Any] = {
            "v": AUDIT_VERSION,
            "time": _iso(time.time() if now is None else now),
            "auth": "oauth" if oauth else "token",
            "token": token.name,
            "subject": token.subject,
            "session": record.session,
            "protocol": record.protocol,
            "method": "tools/call",
            "tool": record.tool[:_NAME_KEPT],
            "package": trail.package or None,
            "ecosystem": trail.ecosystem or None,
            "outcome": trail.outcome,
            "hooks": trail.hooks,
            "policy": trail.policy,
            "duration_ms": round(record.seconds * 1000, 1),
            "trace_id": record.trace_id,
        }
        if self.arguments:
            line["arguments"] = _kept(record.arguments)
            line["result"] = _kept(record.result)
        return line

    def record(self, record: AuditRecord) -> None:
        data = (json.dumps(self.line(record), ensure_ascii=False) + "\n").encode()
        try:
            if self._log is None:
                self._log = RotatingLog(self.path, self.limits)
            self._log.write_record(data)  # a line is never split across two files
        except OSError:
            pass  # a full disk must not fail the call; the trail is best effort

    def close(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
