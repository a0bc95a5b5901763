"""``gateway audit`` as a user runs it: exit codes, formats to stdout and to a file, plain
progress lines off a terminal, and ``--load`` refused without a yes. Each command line runs as
``python -m gateway`` would, in this process (tests/_cli.py): stdin an empty pipe, stdout and
stderr captured, none of them a terminal."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests._cli import run_here

ROOT = Path(__file__).resolve().parents[3]
PI_ALIASES = str(ROOT / "tests" / "fixtures" / "npm" / "pi-aliases-1.0.7.tgz")
OLLAMA = str(ROOT / "tests" / "fixtures" / "npm" / "ollama-openclaw-web-search-0.2.2.tgz")


def gateway(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(tmp_path / "home"), HOME=str(tmp_path))
    return run_here(["audit", *args], env=env, cwd=tmp_path)


def test_json_to_stdout_and_progress_lines_on_stderr(tmp_path):
    done = gateway(tmp_path, PI_ALIASES, OLLAMA, "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [p["id"] for p in report["packages"]] == ["pi-aliases", "@ollama/openclaw-web-search"]
    assert "gateway: auditing 1/2" in done.stderr  # not a terminal: plain lines


def test_a_report_to_a_file(tmp_path):
    done = gateway(tmp_path, PI_ALIASES, "--format", "html", "--output", "report.html")
    assert done.returncode == 0
    assert (tmp_path / "report.html").read_text().startswith("<!doctype html>")
    assert done.stdout == ""


def test_fail_on_exits_1_and_says_why(tmp_path):
    done = gateway(tmp_path, PI_ALIASES, "--fail-on", "partial")
    assert done.returncode == 1
    assert "pi-aliases 1.0.7: 2 partial on gateway" in done.stderr
    # Its two tools are refused (no contracts.tools), as OpenClaw >= 2026.5.2 refuses them.
    refused = gateway(tmp_path, OLLAMA, "--fail-on", "unsupported")
    assert refused.returncode == 1 and "unsupported on gateway" in refused.stderr


def test_a_package_that_cannot_be_read_exits_1_and_the_others_are_reported(tmp_path):
    listing = tmp_path / "packages.txt"
    listing.write_text(f"{PI_ALIASES}\n./missing  # gone\n")
    done = gateway(tmp_path, "--from", str(listing))
    assert done.returncode == 1
    assert "■ pi-aliases 1.0.7" in done.stdout and "✗ ./missing: not audited" in done.stdout


def test_load_without_a_yes_and_without_a_terminal_is_refused(tmp_path):
    done = gateway(tmp_path, PI_ALIASES, "--load")
    assert done.returncode == 2
    assert "[audit.load_unconfirmed]" in done.stderr and done.stdout == ""


def test_no_package_and_a_bad_gate_are_usage_errors(tmp_path):
    assert gateway(tmp_path).returncode == 2
    bad = gateway(tmp_path, PI_ALIASES, "--fail-on", "sometimes")
    assert bad.returncode == 2 and "cli.invalid_argument" in bad.stderr
