"""The quick subset of the fidelity corpus (benchmarks/fidelity, ``run.py --quick``): the
packed real packages of tests/fixtures/npm, examples shipped with the pinned pi-coding-agent
and this project's own nimlet and OpenClaw examples, each loaded by its ecosystem's own host
and by the gateway. The verdict of each, with every difference, must be the one recorded in
``benchmarks/fidelity/quick_expected.json``: a change in what the gateway registers for a real
package — better or worse — fails here until the record is renewed (``run.py --quick
--record``). Offline: no registry, no repository."""

from __future__ import annotations

import json

import pytest

from adapters._sidecar import sidecar_ready
from adapters.pi import find_node
from tests._fidelity_quick import HARNESS, quick_run

pytestmark = pytest.mark.slow(3)  # measured long: scheduled first (tests/conftest.py)

_problem = sidecar_ready("openclaw") or sidecar_ready() or (None if find_node() else "no Node")
if _problem:
    pytest.skip(f"the Node sidecar is not available: {_problem}", allow_module_level=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict:
    """The harness's quick run: made once per test run, by this module or by
    tests/gateway/audit/test_truth.py, whichever asks first (tests/_fidelity_quick.py)."""
    return quick_run(tmp_path_factory, request)


def test_the_quick_subset_keeps_its_recorded_verdicts(run: dict) -> None:
    expected = json.loads((HARNESS / "quick_expected.json").read_text())
    found = {record["name"]: record["signature"] for record in run["packages"]}
    changed = {
        name: {"recorded": expected.get(name), "now": found.get(name)}
        for name in sorted(set(expected) | set(found))
        if expected.get(name) != found.get(name)
    }
    assert not changed, json.dumps(changed, indent=1)


def test_nothing_in_the_quick_subset_is_an_error_or_broken_upstream(run: dict) -> None:
    # The quick packages all load in their own hosts; an error is the harness's own failure.
    assert {r["name"]: r.get("why") for r in run["packages"] if r["verdict"] == "error"} == {}
    assert [r["name"] for r in run["packages"] if r["verdict"] == "broken upstream"] == []
