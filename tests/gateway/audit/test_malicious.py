"""The risk signals' worth, measured: recall on small malicious packages (one behaviour each,
``fixtures/malicious``; ``expected.json`` names the signal that must point at it) and the
false-positive rate on the benign real packages available offline. A fixture counts as found
when a warning-level signal of the expected kind names it; a benign package is a false
positive when any warning-level signal does. The figures are computed here, checked against
the targets (recall >= 90 %, false positives <= 10 %), and must be the ones docs/audit.md
states."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gateway.audit import audit

from ._npm_audit import NPM_TARBALLS, joined, npm_static_report

ROOT = Path(__file__).resolve().parents[3]
MALICIOUS = Path(__file__).parent / "fixtures" / "malicious"
EXPECTED: dict[str, str] = json.loads((MALICIOUS / "expected.json").read_text())
OTHER_BENIGN = [
    *sorted(p for p in (ROOT / "examples" / "packages").iterdir() if p.is_dir()),
    *sorted(p for p in (ROOT / "tests" / "nu" / "fixtures").iterdir() if p.is_dir() and p.name != "npm"),
    *sorted((ROOT / "tests" / "nu" / "fixtures" / "npm").glob("*.tgz")),
    *sorted(p.parent for p in (ROOT / "tests" / "pi" / "fixtures").glob("*/package.json")),
    *sorted(p.parent for p in (ROOT / "tests" / "pi" / "fixtures").glob("*/*/package.json")),
]  # fmt: skip
BENIGN = [*NPM_TARBALLS, *OTHER_BENIGN]


def _warnings(package: object) -> list[str]:
    return [r.kind for r in getattr(package, "risks", []) if r.severity == "warning"]


@pytest.fixture(scope="module")
def figures(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, object]:
    malicious = audit([str(MALICIOUS / name) for name in EXPECTED])
    missed = [
        name
        for name, package in zip(EXPECTED, malicious.packages, strict=True)
        if EXPECTED[name] not in _warnings(package)
    ]
    # The real packages' audit is made once per run (``_npm_audit``); the others' here.
    benign = joined(
        npm_static_report(tmp_path_factory, request),
        audit([str(path) for path in OTHER_BENIGN]),
    )
    flagged = [
        str(path.relative_to(ROOT))
        for path, package in zip(BENIGN, benign.packages, strict=True)
        if _warnings(package)
    ]
    return {
        "found": len(EXPECTED) - len(missed), "total": len(EXPECTED), "missed": missed,
        "flagged": flagged, "benign": len(BENIGN),
    }  # fmt: skip


def test_the_signals_find_at_least_nine_in_ten_malicious_behaviours(figures):
    assert len(EXPECTED) >= 12
    assert figures["found"] / figures["total"] >= 0.9, figures["missed"]


def test_at_most_one_in_ten_benign_packages_gets_a_warning(figures):
    assert figures["benign"] >= 15
    assert len(figures["flagged"]) / figures["benign"] <= 0.1, figures["flagged"]


def test_the_documented_figures_are_the_measured_ones(figures):
    text = (ROOT / "docs" / "audit.md").read_text()
    found = re.search(r"recall: \*\*(\d+) of (\d+)\*\*", text)
    flagged = re.search(r"false positives: \*\*(\d+) of (\d+)\*\*", text)
    assert found and flagged, "docs/audit.md states no figures"
    assert (int(found[1]), int(found[2])) == (figures["found"], figures["total"])
    assert (int(flagged[1]), int(flagged[2])) == (len(figures["flagged"]), figures["benign"])
