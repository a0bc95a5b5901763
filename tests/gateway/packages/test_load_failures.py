"""``active`` only for a package that started: one whose process did not start, or whose
code its runtime could not load (a Pi extension throwing as it is imported), is "failed to
load" — with the reason — in ``status``, ``list --packages`` and ``doctor``, which start
nothing; a start that loads, or new content, forgets it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from tests.adapters._helpers import write_tree
from tests.gateway.packages._helpers import install_from, make_ready
from tests.gateway.test_cli import gateway as run_gateway

pytestmark = pytest.mark.anyio


def _broken_pi(root: Path, throws: bool = True) -> Path:
    body = 'throw new Error("cannot load: a module is missing");\n' if throws else ""
    return write_tree(root, {
        "package.json": {"name": "pi-broken", "version": "1.0.0",
                         "pi": {"extensions": ["./index.ts"]}},
        "index.ts": body + "export default () => {}\n",
    })  # fmt: skip


def _nimlet_exiting(root: Path) -> Path:
    write_tree(root, {"extension.json": {"name": "nim-exits", "command": ["./run.sh"]},
                      "run.sh": "#!/bin/sh\nexit 3\n"})  # fmt: skip
    (root / "run.sh").chmod(0o755)
    return root


def _status(workspace: Any) -> dict[str, Any]:
    done = run_gateway(workspace, "status", "--json")
    return {p["id"]: p for p in json.loads(done.stdout)["packages"]}


async def _start(workspace: Any) -> list[Any]:
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        return list(gateway.packages)


def _started(workspace: Any) -> list[Any]:
    """``_start`` on an event loop of its own: the tests stay synchronous, so the verbs they
    run after it (``status``, ``list``, ``doctor``) run in this process (tests/_cli.py)."""
    return anyio.run(_start, workspace)


@pytest.fixture
def broken(workspace: Any, tmp_path: Path) -> Any:
    """A Pi package whose module throws as it loads, and a nimlet one whose process exits
    before it registers; both pass every gate."""
    home = workspace.config.home
    for source in (_broken_pi(tmp_path / "pi"), _nimlet_exiting(tmp_path / "nim")):
        report = install_from(home, source)
        make_ready(home, report.package.id)
    return workspace


def test_a_package_whose_code_did_not_load_is_not_active(broken: Any) -> None:
    statuses = {s.id: s for s in _started(broken)}
    for package_id in ("pi-broken", "nim-exits"):
        assert statuses[package_id].ready and not statuses[package_id].active
    assert "cannot load: a module is missing" in (statuses["pi-broken"].load_failure or "")
    said = _status(broken)
    assert [said[i]["active"] for i in ("pi-broken", "nim-exits")] == [False, False]
    assert "exited before register" in said["nim-exits"]["load_failure"]
    assert any(r.startswith("failed to load") for r in said["pi-broken"]["reasons"])


def test_status_list_and_doctor_say_failed_to_load(broken: Any) -> None:
    _started(broken)
    status = run_gateway(broken, "status").stdout
    listed = run_gateway(broken, "list", "--packages").stdout
    doctor = run_gateway(broken, "doctor").stdout
    for text in (status, listed):
        words = " ".join(text.split())  # the state column wraps
        assert words.count("failed to load at its last start") == 2 and " active" not in words
    assert "package pi-broken" in doctor and "failed to load" in doctor


def test_new_content_that_loads_is_active_again(broken: Any, tmp_path: Path) -> None:
    _started(broken)
    home = broken.config.home
    # The fixed version from another folder, reinstalled as `update` would.
    install_from(home, _broken_pi(tmp_path / "fixed", throws=False), other_source="reinstall")
    make_ready(home, "pi-broken")
    assert _status(broken)["pi-broken"]["load_failure"] is None  # another content
    statuses = {s.id: s for s in _started(broken)}
    assert statuses["pi-broken"].active
    assert _status(broken)["pi-broken"]["active"] is True
