"""``gateway logs --server``: the audit trail of ``serve --http`` for a person, and as it is
written (``--json``); package text in it is escaped on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

from gateway.cli._logs_server import describe

LINE = {
    "v": 1, "time": "2026-07-28T10:00:00.000Z", "auth": "oauth", "token": "oauth:ci",
    "subject": "u-1", "session": None, "protocol": "2026-07-28", "method": "tools/call",
    "tool": "deploy", "package": "acme.ops", "ecosystem": "nanobot", "outcome": "blocked",
    "hooks": {"tool_call": {"asked": 2, "failed": 0, "blocked": True, "rewrote": False}},
    "policy": {"decision": "deny", "rule": "no-prod", "reason": "prod"},
    "duration_ms": 3.5, "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
}  # fmt: skip


def test_a_line_says_who_what_how_it_went_and_why() -> None:
    assert describe(json.dumps(LINE)) == (
        "2026-07-28T10:00:00.000Z  oauth:ci (sub u-1)  deploy  acme.ops (nanobot)  blocked  "
        "3.5 ms  tool_call: blocked (2)  policy: deny (no-prod)  "
        "trace 4bf92f3577b34da6a3ce929d0e0e4736"
    )


def test_a_line_that_is_not_an_audit_record_is_shown_as_it_is() -> None:
    assert describe("not json") == "not json"
    assert describe("[1, 2]") == "[1, 2]"


def _audit(home: Path, *lines: dict[str, object]) -> None:
    (home / "logs").mkdir(parents=True)
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (home / "logs" / "audit.jsonl").write_text(text)


def test_the_last_lines_are_shown_and_package_text_is_escaped(tmp_path: Path, run_cli) -> None:
    home = tmp_path / "home"
    _audit(home, LINE, {**LINE, "tool": "esc\x1b[2Jape", "outcome": "ok"})
    done = run_cli(home, "logs", "--server", "-n", "1")
    assert done.returncode == 0
    assert "\x1b" not in done.stdout and "esc\\x1b[2Jape" in done.stdout
    assert "deploy" not in done.stdout  # only the last line


def test_json_prints_the_lines_as_written(tmp_path: Path, run_cli) -> None:
    home = tmp_path / "home"
    _audit(home, LINE)
    done = run_cli(home, "logs", "--server", "--json")
    assert json.loads(done.stdout) == LINE


def test_no_audit_log_yet_is_said_on_stderr(tmp_path: Path, run_cli) -> None:
    done = run_cli(tmp_path / "home", "logs", "--server")
    assert (done.returncode, done.stdout) == (0, "")
    assert "no tool call logged yet" in done.stderr
