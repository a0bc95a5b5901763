"""The example guard (examples/.nimlet/extensions/guard) answers requests only: it answered
``initialize`` too, with an empty id, and every ``list`` and ``shell`` of a workspace holding
it said "reply without a request id ignored" (``protocol.unknown_id``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.gateway.test_cli import gateway, ws

GUARD = Path(__file__).parent.parent / "examples/.nimlet/extensions/guard"


def test_the_example_guard_starts_without_a_protocol_note(workspace) -> None:
    shutil.copytree(GUARD, workspace.root / ".nimlet/extensions/guard")
    done = gateway(workspace, "list", "--workspace", ws(workspace), "--trust", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [d["code"] for d in listed["diagnostics"]] == [], listed["diagnostics"]
    assert any(h["owner"] == "guard" for h in listed["hooks"]), listed["hooks"]
