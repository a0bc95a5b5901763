"""The Node sidecar and the Python side name the same things: the negotiated features, the
diagnostic codes the sidecar emits, the reply rule of each event it folds across hosts, and
the V8 flags its tier-up module sets.

The JavaScript values are read by importing the sidecar's own modules in a real Node."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adapters._node_flags import TIER_UP_FLAGS
from adapters.pi import SIDECAR_DIR, find_node
from gateway.base import catalogue
from gateway.model import CANONICAL_EVENTS, EXTENDED_ALIASES
from gateway.wire.features import RUNTIME_FEATURES

NODE = find_node()
pytestmark = pytest.mark.skipif(NODE is None, reason="no Node >= 22.19")


def _sources() -> list[Path]:
    """The sidecar's own modules: its folder walked without ``node_modules`` (a walk into
    it read ~11,000 entries at every collection, in every worker)."""
    found = []
    for folder, dirs, files in os.walk(SIDECAR_DIR):
        dirs[:] = [d for d in dirs if d != "node_modules"]
        found += [Path(folder, name) for name in files if name.endswith(".mjs")]
    return sorted(found)


SOURCES = _sources()
CODE_LITERAL = re.compile(r"""["']((?:pi|openclaw|sidecar|nu)\.[a-z][a-z_]*)["']""")

READ = """
import fs from "node:fs";
const lib = (name) => import(new URL(`lib/${name}`, process.argv[1]).href);
const { FEATURES } = await lib("features.mjs");
const { CODES } = await lib("diagnostics.mjs");
const { FOLD } = await lib("hosts.mjs");
const { TIER_UP_FLAGS } = await lib("tier-up.mjs");
// Importing the sidecar's modules moves its stdout away (lib/stdio.mjs): a file it is.
fs.writeFileSync(process.argv[2], JSON.stringify({ FEATURES, CODES, FOLD, TIER_UP_FLAGS }));
process.exit(0);
"""


@pytest.fixture(scope="module")
def sidecar(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    assert NODE is not None
    out = tmp_path_factory.mktemp("names") / "values.json"
    subprocess.run(
        [NODE, "--input-type=module", "-e", READ, SIDECAR_DIR.as_uri() + "/", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    values: dict[str, Any] = json.loads(out.read_text())
    return values


def test_the_feature_list_is_the_one_the_gateway_offers_sidecars(sidecar: dict) -> None:
    assert len(set(sidecar["FEATURES"])) == len(sidecar["FEATURES"])
    assert sorted(sidecar["FEATURES"]) == sorted(RUNTIME_FEATURES)


def test_every_sidecar_code_is_catalogued_with_the_same_name(sidecar: dict) -> None:
    assert set(sidecar["CODES"]) - set(catalogue()) == set()


def test_every_code_literal_in_the_sources_is_in_the_sidecar_list(sidecar: dict) -> None:
    used: dict[str, list[str]] = {}
    for path in SOURCES:
        for code in CODE_LITERAL.findall(path.read_text(encoding="utf-8")):
            used.setdefault(code, []).append(path.name)
    assert {c: where for c, where in used.items() if c not in sidecar["CODES"]} == {}
    # And no listed code is dead: each is used somewhere besides the list itself.
    listed_only = {
        code for code in sidecar["CODES"] if set(used.get(code, [])) <= {"diagnostics.mjs"}
    }
    assert listed_only == set()


def test_the_tier_up_module_sets_the_flags_the_python_side_documents(sidecar: dict) -> None:
    assert tuple(sidecar["TIER_UP_FLAGS"]) == TIER_UP_FLAGS


def test_cross_host_reply_rules_are_the_catalogue_rules(sidecar: dict) -> None:
    """The sidecar folds by the names it subscribes with: its ``context`` is the catalogue's
    ``context_transform`` (``EXTENDED_ALIASES``); nimlet's own ``context`` never reaches it."""
    fold = sidecar["FOLD"]
    wire = {event: name for name, event in EXTENDED_ALIASES.items()}
    for name, rule in fold.items():
        spec = CANONICAL_EVENTS[EXTENDED_ALIASES.get(name, name)]
        assert bool(rule.get("gate")) == spec.gate, name
        for key in ("chain", "append", "replace", "collect"):
            assert tuple(rule.get(key, ())) == getattr(spec, key), (name, key)
        assert (tuple(rule["stop"]) if "stop" in rule else None) == spec.stop_when, name
    # Every event whose replies carry something is folded; observe-only ones need no rule.
    carrying = {
        wire.get(s.name, s.name)
        for s in CANONICAL_EVENTS.specs()
        if (s.gate or s.chain or s.append or s.replace or s.collect or s.stop_when)
        and s.name not in EXTENDED_ALIASES
    }
    assert carrying == set(fold)


def test_sources_are_small_modules() -> None:
    sizes = {
        p.relative_to(SIDECAR_DIR).as_posix(): len(p.read_text().splitlines()) for p in SOURCES
    }
    assert {name: lines for name, lines in sizes.items() if lines > 300} == {}
    assert Path(SIDECAR_DIR / "sidecar.mjs") in SOURCES
