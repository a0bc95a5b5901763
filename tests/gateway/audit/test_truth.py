"""Every row must be true. Each real public package (tests/fixtures/npm) and the examples'
packages are installed and loaded by a real gateway, and compared with the audit:

- observed (``--load``): the rows the load registered and the gateway runs are exactly what
  the gateway registers for that package; every row the load found unsupported carries a
  code the gateway itself reported for the package;
- static: every tool and command row the gateway column says runs is registered by the
  gateway — or the observed audit and the gateway agree it is not registered at load;
- the knowledge tables of the adapters agree with the sidecar (a package listening to every
  Pi event; OpenClaw's hook catalogue read from the sidecar's own module).

The gateway of a packed package the fidelity harness's quick subset installs is the
harness's own (tests/_fidelity_quick.py): that package installed alone in a private home
through the command line, granted what it requests, trusted, enabled and listed — one run
per test run, shared with tests/fidelity/test_quick.py. The others (devclaw, which the
quick subset leaves out, and the examples' acme-review) are each installed alone (nothing
compiled at install, what it requests granted, trusted, enabled) and loaded by one gateway,
once per run (tests/_opened_alone.py; devclaw's load shared with
tests/openclaw/test_host_loaders.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adapters._sidecar import sidecar_ready
from adapters.openclaw import MIN_NODE
from adapters.openclaw._host_api import ABSENT_IN, HOOKS, LEGACY, NEVER_EMITTED, RECORDED
from adapters.pi import SIDECAR_DIR
from adapters.pi._audit import (
    GATEWAY_EVENTS,
    PI_EVENTS,
    REMOVED_EVENTS,
    SIDECAR_EVENTS,
    TRANSLATED_EVENTS,
)
from gateway import GatewayConfig
from gateway.audit import GATEWAY, PackageAudit, Status, audit
from gateway.runtime import find_node
from tests._fidelity_quick import quick_gateway_lists, quick_run
from tests._opened_alone import opened_alone

from ._npm_audit import NPM_TARBALLS, joined, npm_static_report

pytestmark = pytest.mark.slow(3)  # measured long: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[3]
ACME = ROOT / "examples" / "packages" / "acme-review"
PACKAGES = [*NPM_TARBALLS, ACME]
NODE = find_node(MIN_NODE)
_problem = (
    sidecar_ready("pi") or sidecar_ready("openclaw") or (None if NODE else "no Node >= 24.16")
)
if _problem:
    pytest.skip(f"the Node sidecar is not available: {_problem}", allow_module_level=True)
_RUNNING = (Status.RUNS,)


@pytest.fixture(scope="module")
def world(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, Any]:
    """The audits of the packages (the static audit of the real packages is made once per
    run, ``_npm_audit``)."""
    base = tmp_path_factory.mktemp("truth")
    sources = [str(p) for p in PACKAGES]
    static = joined(
        npm_static_report(tmp_path_factory, request),
        audit([str(ACME)], config=GatewayConfig(home=base / "audit", user_home=base)),
    )
    observed = audit(
        sources,
        load=True,
        confirmed_by="--yes",
        config=GatewayConfig(home=base / "audit", user_home=base),
    )
    return {"base": base, "static": static, "observed": observed}


def _listed(listing: dict[str, Any], package_id: str) -> dict[str, Any]:
    """What ``gateway list --json`` shows of ``package_id`` (the only package of its home)."""
    return {
        "tool": {t["name"] for t in listing["tools"] if t["owner"] == package_id},
        "command": {c["name"] for c in listing["commands"] if c["owner"] == package_id},
        "hook": {h["event"] for h in listing["hooks"] if h["owner"] == package_id},
        "codes": {d["code"] for d in listing["diagnostics"] if d.get("package") == package_id},
    }


@pytest.fixture(scope="module")
def registered(
    world: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> dict[str, dict[str, Any]]:
    """What a real gateway registers for each package, by id: the fidelity harness's gateway
    for the packed packages its quick subset installs, the run's gateway of each other
    package installed alone. Made once: the tests only read it, and what the audit says does
    not depend on the event loop (the transport under it runs on both in tests/gateway and
    tests/sidecars)."""
    lists = quick_gateway_lists(quick_run(tmp_path_factory, request))
    found: dict[str, dict[str, Any]] = {}
    for source, package in zip(PACKAGES, world["observed"].packages, strict=True):
        if source in lists:
            listing = lists[source]
            assert listing is not None, f"the fidelity harness listed nothing for {source.name}"
            found[package.id] = _listed(listing, package.id)
            continue
        alone = opened_alone(source, tmp_path_factory, request)
        assert alone.id == package.id, (alone.id, package.id)
        found[package.id] = {
            **{kind: alone.owned(kind) for kind in ("tool", "command", "hook")},
            "codes": alone.codes(),
        }
    assert set(found) == {p.id for p in world["observed"].packages}
    return found


def _canonical(package: PackageAudit, name: str) -> set[str]:
    """The canonical events the gateway runs a native hook at (from the adapters' tables)."""
    if package.ecosystem == "pi":
        return set(GATEWAY_EVENTS.get(name, ()))
    if package.ecosystem == "openclaw":
        event = HOOKS.get(LEGACY.get(name, name), (False, None, ""))[1]
        return {event} if event and event != "host" else set()
    return {name}


def test_observed_rows_that_run_are_exactly_what_the_gateway_registers(world, registered):
    for package in world["observed"].packages:
        assert package.ok and package.observation is not None and package.observation.loaded, (
            package.source
        )
        actual = registered[package.id]
        for kind in ("tool", "command"):
            claimed = {
                r.name for r in package.rows
                if r.kind == kind and r.observed and r.cells[GATEWAY].support.status in _RUNNING
            }  # fmt: skip
            assert claimed == actual[kind], (package.id, kind)
        hooks = set()
        for r in package.rows:
            if r.kind == "hook" and r.observed and r.cells[GATEWAY].support.status in _RUNNING:
                hooks |= _canonical(package, r.name)
        if package.ecosystem != "nanobot":  # nanobot hooks are factories, not named events
            assert hooks == actual["hook"], package.id


def test_observed_rows_that_do_not_run_carry_a_code_the_gateway_reported(world, registered):
    for package in world["observed"].packages:
        for r in package.rows:
            cell = r.cells[GATEWAY]
            if cell.observed and cell.support.status is Status.UNSUPPORTED:
                assert cell.support.code in registered[package.id]["codes"], (
                    package.id,
                    r.kind,
                    r.name,
                )


def test_static_rows_that_run_register_or_are_known_not_to_at_load(world, registered):
    observed = {p.id: p for p in world["observed"].packages}
    for package in world["static"].packages:
        for r in package.rows:
            if (
                r.kind not in ("tool", "command")
                or r.cells[GATEWAY].support.status is not Status.RUNS
            ):
                continue
            if r.name in registered[package.id][r.kind]:
                continue
            seen = next(
                x for x in observed[package.id].rows if (x.kind, x.name) == (r.kind, r.name)
            )
            assert seen.cells[GATEWAY].support.code == "audit.not_registered", (package.id, r.name)


def test_the_pi_event_table_is_the_sidecars(tmp_path):
    fixture = Path(__file__).parent / "fixtures" / "pi-all-events"
    package = audit(
        [str(fixture)],
        load=True,
        confirmed_by="--yes",
        config=GatewayConfig(home=tmp_path / "g", user_home=tmp_path),
    ).packages[0]
    hooks = {r.name: r.cells[GATEWAY] for r in package.rows if r.kind == "hook" and r.observed}
    assert set(hooks) == PI_EVENTS | REMOVED_EVENTS
    for name, cell in hooks.items():
        if name in TRANSLATED_EVENTS:  # said by the sidecar itself
            assert cell.support.code == "pi.legacy_event_translated", name
        elif name in GATEWAY_EVENTS or name in SIDECAR_EVENTS:
            assert cell.support.status is Status.RUNS, name
        else:
            assert cell.support.code == "pi.event_unmapped", name  # said by the sidecar itself


def test_the_openclaw_hook_catalogue_is_the_sidecars(tmp_path):
    read = (
        "import fs from 'node:fs';"
        "const lib = (n) => import(new URL(`lib/${n}`, process.argv[1]).href);"
        "const { HOOKS, LEGACY, ABSENT_IN } = await lib('openclaw/hooks.mjs');"
        "const { RECORDED_REGISTRARS } = await lib('openclaw/api.mjs');"
        # the sidecar's stdio module points fd 1 at the log: write to a file instead
        "fs.writeFileSync(process.argv[2], JSON.stringify({ HOOKS, LEGACY, ABSENT_IN, RECORDED_REGISTRARS }));"
        "process.exit(0);"
    )
    out = tmp_path / "catalogue.json"
    subprocess.run(
        [str(NODE), "--input-type=module", "-e", read, SIDECAR_DIR.as_uri() + "/", str(out)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    sidecar = json.loads(out.read_text())
    assert sidecar["LEGACY"] == LEGACY
    assert {k: tuple(v) for k, v in sidecar["ABSENT_IN"].items()} == ABSENT_IN
    assert all(set(names) <= set(HOOKS) | set(LEGACY) for names in ABSENT_IN.values())
    assert set(sidecar["RECORDED_REGISTRARS"]) == set(RECORDED)
    assert set(sidecar["HOOKS"]) == set(HOOKS)
    for name, spec in sidecar["HOOKS"].items():
        conv, event, why = HOOKS[name]
        assert conv == bool(spec.get("conv")), name
        assert event == (spec.get("event") or ("host" if spec.get("host") else None)), name
        assert why == spec.get("unmapped", spec.get("never", "")), name
        assert (name in NEVER_EMITTED) == bool(spec.get("never")), name
