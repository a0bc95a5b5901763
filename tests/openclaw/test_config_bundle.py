"""The OpenClaw host's config validator from its bundle (``sidecars/bundle.mjs``,
``lib/openclaw/config.mjs``): loaded in place of the SDK's own ``json-schema-runtime`` (one
module instead of ~245) only when it was built for the installed SDK, with the same results."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adapters._sidecar import sidecar_ready
from adapters._sidecars import sidecar_dir
from adapters.openclaw import MIN_NODE
from gateway.runtime import find_node

_problem = sidecar_ready("openclaw") or (None if find_node(MIN_NODE) else "no Node >= 24.16")
if _problem:
    pytest.skip(f"OpenClaw host not available: {_problem}", allow_module_level=True)

BUNDLE = Path("node_modules") / ".gateway" / "openclaw"
SCRIPT = """
import { registerHooks } from "node:module";
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
const { validateConfig } = await import(process.argv[1]);
const results = [];
for (const [schema, value] of JSON.parse(process.argv[2])) results.push(await validateConfig("p", schema, value));
const from = (part) => loaded.some((url) => url.includes(part));
console.log(JSON.stringify({ results, bundle: from("/.gateway/openclaw/"), sdk: from("/node_modules/openclaw/") }));
"""
GREETING = {
    "type": "object",
    "additionalProperties": False,
    "properties": {"greeting": {"type": "string", "default": "hello"}, "n": {"type": "integer"}},
}
CASES = [
    [GREETING, {}],  # the default applied
    [GREETING, {"greeting": "hi", "n": 3}],
    [GREETING, {"greeting": 5}],  # refused, OpenClaw's error text
    [GREETING, {"other": True}],  # refused: additionalProperties
    [{"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}}}, {}],
]


def _validate(where: Path, **env: str) -> dict[str, Any]:
    node = find_node(MIN_NODE)
    assert node is not None
    config = (where / "lib" / "openclaw" / "config.mjs").as_uri()
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, config, json.dumps(CASES)],
        capture_output=True, text=True, timeout=120, cwd=where,
        env={**os.environ, **env}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@pytest.mark.skipif(
    not (sidecar_dir() / BUNDLE / "manifest.json").is_file(), reason="not bundled (gateway setup)"
)
def test_the_bundled_validator_is_used_and_answers_as_the_sdks_own() -> None:
    bundled = _validate(sidecar_dir(), GATEWAY_SIDECAR_UNBUNDLED="")
    own = _validate(sidecar_dir(), GATEWAY_SIDECAR_UNBUNDLED="openclaw")
    assert (bundled["bundle"], bundled["sdk"]) == (True, False)
    assert (own["bundle"], own["sdk"]) == (False, True)
    assert bundled["results"] == own["results"]
    ok, chosen, wrong_type, extra, missing = bundled["results"]
    assert ok == {"ok": True, "value": {"greeting": "hello"}}
    assert chosen == {"ok": True, "value": {"greeting": "hi", "n": 3}}
    assert not wrong_type["ok"] and not extra["ok"] and not missing["ok"]


def test_a_bundle_built_for_another_sdk_is_not_loaded(tmp_path: Path) -> None:
    """A sidecar folder whose bundle's manifest names another OpenClaw: the SDK's own module
    answers, and the bundle (here one that would fail the start) is never imported."""
    shutil.copytree(sidecar_dir() / "lib", tmp_path / "lib")
    modules = tmp_path / "node_modules"
    modules.mkdir()
    (modules / "openclaw").symlink_to(sidecar_dir() / "node_modules" / "openclaw")
    stale = tmp_path / BUNDLE
    stale.mkdir(parents=True)
    (stale / "json-schema-runtime.mjs").write_text('throw new Error("stale bundle loaded");\n')
    manifest = {
        "version": "2000.1.1",
        "entries": {"json-schema-runtime": "json-schema-runtime.mjs"},
    }
    (stale / "manifest.json").write_text(json.dumps(manifest))
    found = _validate(tmp_path, GATEWAY_SIDECAR_UNBUNDLED="")
    assert (found["bundle"], found["sdk"]) == (False, True)
    assert found["results"][0] == {"ok": True, "value": {"greeting": "hello"}}
