"""The example workspace and the docs, as a reader of a fresh clone meets them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from adapters.pi import find_node, sidecar_ready

REPO = Path(__file__).resolve().parents[1]


def test_docs_stand_alone_in_a_clone() -> None:
    # ../shared (design notes, specs) is beside the team's checkout, not in a clone.
    pages = [REPO / "README.md", REPO / "examples" / "README.md", *(REPO / "docs").rglob("*.md")]
    linked = [page.name for page in pages if "../shared" in page.read_text(encoding="utf-8")]
    assert linked == []


def test_the_demo_shows_every_runnable_ecosystem_acting_on_another() -> None:
    problem = sidecar_ready() or (None if find_node() else "no Node >= 22.19")
    if problem:
        pytest.skip(f"Pi sidecar not available: {problem}")
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    assert '"acme.review (nanobot)"' in out
    assert '"text": "deploy key [redacted]"' in out  # a Pi hook on a nimlet tool
    assert "ticket opened: cache bug (reviewer: acme.review)" in out  # nanobot hook, Pi tool
    assert "network commands are blocked in this project" in out  # nimlet guard, agent tool
    assert '"house-style (openclaw)"' in out
    assert "Review requested for gateway/host/_gateway.py" in out  # OpenClaw hook, nanobot tool
    assert "house-style: vendor/left_pad.py is vendored code" in out
    assert '"nu-changelog (nu)"' in out
    assert "- **fix**: rotate the key [redacted]" in out  # a Pi hook on a Nu tool
    assert '"glossary (agent-plugins)"' in out and '"ticket-policy (claude)"' in out
    assert '"term": "cache"' in out  # an OpenClaw hook on an Agent Plugin's MCP tool
    assert "production incidents go through the on-call runbook" in out  # Claude hook, Pi tool
