"""The Pi SDK's bundle (``sidecars/bundle.mjs``) leaves what the Pi host never runs
unevaluated: pi's HTTP dispatcher imports undici (~110 modules, and Node's http, http2 and
tls), which only pi's own main and interactive mode use; in the bundle it is loaded on first
use, so importing the SDK, as most real Pi packages do, does not evaluate it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from adapters._sidecars import sidecar_dir
from adapters.pi import MIN_NODE, find_node, sidecar_ready

BUNDLE = sidecar_dir() / "node_modules" / ".gateway" / "pi"
if sidecar_ready() or find_node(MIN_NODE) is None or not (BUNDLE / "manifest.json").is_file():
    pytest.skip("no Pi SDK bundle (gateway setup)", allow_module_level=True)

LOADED = """
import { writeFileSync } from "node:fs";
await import(process.argv[1]);
const loaded = ["http", "http2", "tls"].filter((name) => process.moduleLoadList.includes(`NativeModule ${name}`));
writeFileSync(process.argv[2], JSON.stringify(loaded));
"""
"""Written to a file: the SDK's modules take over the process's standard output."""


def _index() -> Path:
    manifest = json.loads((BUNDLE / "manifest.json").read_text(encoding="utf-8"))
    return BUNDLE / manifest["entries"]["dist/index.js"]


def test_importing_the_sdk_does_not_evaluate_undici(tmp_path: Path) -> None:
    node = find_node(MIN_NODE)
    assert node is not None
    found = tmp_path / "loaded.json"
    done = subprocess.run(
        [node, "--input-type=module", "-e", LOADED, _index().as_uri(), str(found)],
        capture_output=True, text=True, timeout=120, cwd=sidecar_dir(), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(found.read_text(encoding="utf-8")) == []


def test_undici_is_reached_only_through_the_lazy_namespace() -> None:
    """Every call that evaluates the bundled undici is the lazy namespace's, made on first
    use of one of its properties."""
    calls = []
    for file in BUNDLE.glob("*.mjs"):
        text = file.read_text(encoding="utf-8")
        calls += [line for line in text.splitlines() if re.search(r"\brequire_undici\(\)", line)]
    assert calls, "undici is not in the bundle any more: update LAZY in sidecars/bundle.mjs"
    lazy = re.compile(
        r"(var|const|let) undici = new Proxy\(\{\}, \{ get: \(_, key\) => \(__lazy_undici"
    )
    for line in calls:
        assert lazy.match(line), line
