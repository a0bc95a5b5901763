"""``gateway sync --frozen`` refuses a home whose pinned tool definitions differ from the
lockfile's, as it refuses unapplied decisions: each package said with ``lock.pins_differ``
(the tools, pinned here and in the lockfile, by digest) beside ``lock.home_differs``, and
nothing changed; ``gateway sync`` without ``--frozen`` warns with the same code and leaves
the pins; ``--accept`` makes them the lockfile's. The package is the real process of
``test_tool_pins``."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from gateway.packages import (
    SyncRefused,
    ToolPins,
    load_adapters,
    lock_home,
    pin_digest,
    read_lockfile,
    sync,
)
from tests.gateway.packages._helpers import cli
from tests.gateway.test_tool_pins import FIRST, listed
from tests.gateway.test_tool_pins import home as home  # the fixture

pytestmark = pytest.mark.anyio
ELSEWHERE = pin_digest("fetch", "Fetch a URL, as pinned on another machine", FIRST["schema"])


async def lockfile(home: Path, tmp_path: Path, **tools: str | None) -> Path:
    """The lockfile of ``home`` once its tools are pinned, with ``tools`` pinned otherwise
    (None: not pinned there)."""
    await listed(home, tmp_path)
    document = lock_home(home).to_dict()
    pinned = document["packages"][0]["tools"]
    for name, digest in tools.items():
        if digest is None:
            del pinned[name]
        else:
            pinned[name] = digest
    path = tmp_path / "gateway.lock"
    path.write_text(json.dumps(document))
    return path


def locked_pins(home: Path, package_id: str) -> dict[str, str]:
    return {name: pinned.digest for name, pinned in ToolPins(home, package_id).tools.items()}


def frozen(home: Path, path: Path, **options: bool):
    return sync(home, read_lockfile(path), inspector=load_adapters().inspect, frozen=True,
                **options)  # fmt: skip


async def test_frozen_sync_passes_when_the_pins_match(home, tmp_path) -> None:
    path = await lockfile(home, tmp_path)  # the control
    report = frozen(home, path)
    assert report.differences == [] and report.diagnostics == []


async def test_frozen_sync_refuses_a_tool_pinned_otherwise_and_names_it(home, tmp_path) -> None:
    path = await lockfile(home, tmp_path, fetch=ELSEWHERE)
    here = locked_pins(home, "rug")
    with pytest.raises(SyncRefused) as refused:
        frozen(home, path)
    codes = [d.code for d in refused.value.diagnostics]
    assert codes == ["lock.pins_differ", "lock.home_differs"]
    said = refused.value.diagnostics[0]
    assert said.package == "rug" and "tool 'fetch' pinned here as " in said.message
    assert f"in the lockfile as {ELSEWHERE[:19]}…" in said.message
    assert "steady" not in said.message  # the tool pinned alike is not a difference
    assert locked_pins(home, "rug") == here  # nothing changed


async def test_frozen_sync_refuses_tools_pinned_on_one_side_only(home, tmp_path) -> None:
    path = await lockfile(home, tmp_path, steady=None, extra=ELSEWHERE)
    with pytest.raises(SyncRefused) as refused:
        frozen(home, path)
    message = refused.value.diagnostics[0].message
    assert "tool 'steady' pinned here only" in message
    assert "tool 'extra' pinned in the lockfile only" in message


async def test_sync_without_frozen_warns_and_accept_restores_the_lockfiles_pins(
    home, tmp_path
) -> None:
    path = await lockfile(home, tmp_path, fetch=ELSEWHERE)
    lock = read_lockfile(path)
    report = sync(home, lock, inspector=load_adapters().inspect)
    (warned,) = report.diagnostics
    assert warned.code == "lock.pins_differ" and locked_pins(home, "rug")["fetch"] != ELSEWHERE
    report = frozen(home, path, accept=True)
    assert report.differences == [] and locked_pins(home, "rug")["fetch"] == ELSEWHERE
    tools, (changed,) = await listed(home, tmp_path)  # the lockfile's pin holds it back here
    assert "fetch" not in tools and changed.contribution == "fetch"


def test_the_command_line_fails_frozen_sync_with_the_code(home, tmp_path) -> None:
    """Synchronous (the gateway's start on a loop of its own): the verbs run in this process."""
    path = anyio.run(lambda: lockfile(home, tmp_path, fetch=ELSEWHERE))
    done = cli(home, "sync", "--frozen", "--lockfile", str(path), "--json")
    assert done.returncode == 1, done.stderr
    codes = {d["code"] for d in json.loads(done.stdout)["diagnostics"]}
    assert {"lock.pins_differ", "lock.home_differs"} <= codes
    same = anyio.run(lockfile, home, tmp_path)  # the control
    assert cli(home, "sync", "--frozen", "--lockfile", str(same)).returncode == 0
