"""What the sandbox refused a package at its last start stays visible where the package is
not started again: ``list`` from the registration cache, and ``status``
(gateway/packages/_denials.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.packages import recalled_denials, remember_denials
from gateway.sandbox import SANDBOX_DENIED, detect_support
from gateway.store import StateStore
from tests.conftest import Workspace
from tests.gateway.test_cli import gateway as run_cli
from tests.gateway.test_lazy_start import nimlet_package, starts

pytestmark = pytest.mark.anyio


def _denied(diagnostics: list, package_id: str) -> list[str]:
    return [
        d.message for d in diagnostics if d.code == "sandbox.denied" and d.package == package_id
    ]


def _writer(workspace: Workspace, writes: bool = True) -> tuple[str, Path]:
    """A package that writes into the user's home as it starts: refused."""
    target = str(workspace.home / "notes.txt") if writes else None
    return nimlet_package(workspace, "writer", write_at_start=target)


def _started(workspace: Workspace) -> Any:
    """The workspace's gateway opened and closed on an event loop of its own (its
    diagnostics kept): the tests that then run ``gateway status`` stay synchronous, so the
    verb runs in this process (``tests/_cli.run_gateway``)."""

    async def start() -> Any:
        async with open_gateway(
            workspace.root, trust=True, config=workspace.config, transport=workspace.transport
        ) as gateway:
            pass
        return gateway

    return anyio.run(start)


async def test_a_refusal_at_start_is_said_again_while_the_registration_is_cached(workspace):
    package_id, log = _writer(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        live = _denied(gateway.diagnostics, package_id)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []  # from the cache: not started again
        recalled = _denied(gateway.diagnostics, package_id)
    assert starts(log) == 1
    assert live and "refused access to" in live[0]
    assert recalled == [f"{live[0]} (at its last start)"]


def test_status_shows_the_refusal_of_the_last_start(workspace):
    package_id, _ = _writer(workspace)
    _started(workspace)
    shown = run_cli(workspace, "status")
    assert shown.returncode == 0
    assert f"{package_id}: the sandbox refused access to" in shown.stdout
    assert "(at its last start)" in shown.stdout
    document = json.loads(run_cli(workspace, "status", "--json").stdout)
    (entry,) = document["packages"]
    assert [d["code"] for d in entry["denied_at_last_start"]] == ["sandbox.denied"]


def test_a_start_without_refusals_forgets_the_last_ones(workspace):
    package_id, _ = _writer(workspace)
    _started(workspace)
    assert "refused" in run_cli(workspace, "status").stdout
    _writer(workspace, writes=False)  # now it writes nothing; a new registration starts it
    for cached in (workspace.config.home / "cache" / "registrations").iterdir():
        cached.unlink()
    gateway = _started(workspace)
    assert _denied(gateway.diagnostics, package_id) == []  # nor said at its stop
    assert recalled_denials(workspace.config.home, package_id, []) == []
    assert "refused" not in run_cli(workspace, "status").stdout


def test_a_record_is_not_recalled_once_the_grants_changed(tmp_path: Path) -> None:
    refused = SANDBOX_DENIED("p: refused", package="p", hint="gateway permissions p x")
    remember_denials(tmp_path, "p", ["network"], [refused])
    assert [d.hint for d in recalled_denials(tmp_path, "p", ["network"])] == [refused.hint]
    assert recalled_denials(tmp_path, "p", ["network", "workspace.write"]) == []


def test_an_unreadable_record_is_no_record(tmp_path: Path) -> None:
    refused = SANDBOX_DENIED("p: refused", package="p")
    remember_denials(tmp_path, "p", [], [refused])
    (record,) = (tmp_path / "cache" / "denials").iterdir()
    record.write_text("{not json")
    assert recalled_denials(tmp_path, "p", []) == []


def test_a_recalled_refusal_is_never_noted_twice(tmp_path: Path) -> None:
    """Run after run — recalled, then started and remembered with the recalled copy among
    what was said — the note stays one, and the refusal one."""
    refused = SANDBOX_DENIED("p: refused", package="p")
    said = [refused]
    for _ in range(3):
        remember_denials(tmp_path, "p", [], said)
        recalled = recalled_denials(tmp_path, "p", [])
        said = [*recalled, refused]
    assert [d.message for d in recalled] == ["p: refused (at its last start)"]


def test_a_record_holding_the_note_many_times_is_recalled_with_one(tmp_path: Path) -> None:
    nested = SANDBOX_DENIED("p: refused" + " (at its last start)" * 11, package="p")
    remember_denials(tmp_path, "p", [], [nested])
    (record,) = (tmp_path / "cache" / "denials").iterdir()
    document = json.loads(record.read_text())
    document["denials"][0]["message"] = nested.message  # as an older gateway wrote it
    record.write_text(json.dumps(document))
    assert [d.message for d in recalled_denials(tmp_path, "p", [])] == [
        "p: refused (at its last start)"
    ]


@pytest.mark.skipif(
    not (detect_support().user_notify and detect_support().landlock),
    reason="needs Landlock and seccomp user notification",
)
def test_a_protected_name_refused_at_start_is_said_and_recalled_with_its_code(workspace):
    """A package granted ``workspace.write`` that plants ``.envrc`` as it starts: refused
    (the guard), said by the run, and by ``status`` afterwards with the grant reopening it."""
    planted = workspace.root / ".envrc"
    package_id, _ = nimlet_package(workspace, "planter", write_at_start=str(planted))
    with StateStore.open(workspace.config.home) as store:
        store.grant(package_id, ["workspace.write"], ["workspace.write"])
    gateway = _started(workspace)
    # Said by the time its stop is over (its supervisor's report socket is drained then).
    said = [d for d in gateway.diagnostics if d.code == "sandbox.protected_name"]
    assert not planted.exists()
    assert [d.package for d in said] == [package_id]
    assert ".envrc" in said[0].message
    shown = run_cli(workspace, "status")
    assert ".envrc is protected" in shown.stdout and "(at its last start)" in shown.stdout
    document = json.loads(run_cli(workspace, "status", "--json").stdout)
    (entry,) = document["packages"]
    recalled = entry["denied_at_last_start"]
    assert [d["code"] for d in recalled] == ["sandbox.protected_name"]
    assert recalled[0]["hint"] == f"gateway permissions {package_id} workspace.write:.envrc"
