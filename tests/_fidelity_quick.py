"""The fidelity harness's quick run (benchmarks/fidelity, ``run.py --quick``), made once per
test run (``tests._once``) and read by the two modules that need it: tests/fidelity/test_quick.py
(its verdicts) and tests/gateway/audit/test_truth.py (what the gateway registers for each
packed real package the quick subset installs, instead of installing and starting those
packages again in a gateway of its own).

The run keeps each package's ``gateway list --json`` (``--gateway-lists``): the gateway side
of the harness installs each package in a private home as its user does (``gateway install``,
``permissions`` with what it requests, ``trust``, ``enable``) and lists it, which starts it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests._once import once_per_run

__all__ = ["HARNESS", "quick_gateway_lists", "quick_run"]

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "benchmarks" / "fidelity"


def _run(folder: Path) -> dict[str, Any]:
    out = folder / "quick.json"
    result = subprocess.run(
        [sys.executable, str(HARNESS / "run.py"), "--quick", "--gateway-lists", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def quick_run(factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict[str, Any]:
    """``run.py --quick --gateway-lists --json``'s JSON; each call returns its own copy."""
    data: dict[str, Any] = once_per_run("fidelity-quick", _run, factory, request)
    return data


def quick_gateway_lists(run: dict[str, Any]) -> dict[Path, dict[str, Any] | None]:
    """Each quick package's ``gateway list --json`` (None: the gateway side listed nothing),
    by the packed fixture it was installed from (corpus.toml's ``fixture``); the quick packages
    that are not a packed fixture are left out."""
    corpus = tomllib.loads((HARNESS / "corpus.toml").read_text())["package"]
    fixtures = {p["name"]: ROOT / p["fixture"] for p in corpus if p.get("quick") and "fixture" in p}
    return {
        fixtures[record["name"]]: record.get("gateway_list")
        for record in run["packages"]
        if record["name"] in fixtures
    }
