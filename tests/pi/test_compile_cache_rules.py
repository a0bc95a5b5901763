"""The rules of a Pi package's compiled-code caches (docs/security.md, "The default policy";
docs/pi.md, "Cold start"): a package's jiti cache is in its own temp folder, which another
package's process cannot write, nor can any package write the shared Node compile cache
``gateway setup`` made; and a source that changed never runs from its old compiled entry
(jiti keys an entry by the source's path and checks it against the source's digest)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from adapters._sidecars import compile_cache_dir, sidecar_dir
from adapters.pi import MIN_NODE, find_node, sidecar_ready
from adapters.pi._precompile import compile_cache
from gateway.packages import load_adapters
from gateway.runtime import child_environment
from gateway.sandbox import detect_support, node_runtime_paths, policy_for_entry, spawn_confined
from gateway.store import StateStore

from .test_precompile import install_prepared, write_package

if sidecar_ready() or find_node(MIN_NODE) is None:
    pytest.skip("the Pi sidecar is not set up", allow_module_level=True)

WRITE = """
const { writeFileSync } = require("node:fs");
for (const file of process.argv.slice(1)) {
  try { writeFileSync(file, "planted"); console.log(JSON.stringify([file, "written"])); }
  catch (error) { console.log(JSON.stringify([file, error.code])); }
}
"""
LOAD = """
import { createJiti, useCache } from %s;
useCache(process.argv[1]);
const module = await createJiti(import.meta.url).import(process.argv[2]);
console.log(module.value);
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or detect_support().landlock_abi < 6,
    reason="needs Linux with Landlock ABI 6 or later",
)
def test_only_the_package_itself_writes_its_compile_cache(tmp_path: Path) -> None:
    home = tmp_path / "home" / ".gateway"
    cached = install_prepared(home, write_package(tmp_path / "a")).package.record.id
    other_root = tmp_path / "b" / "pi-other"
    (other_root / "extensions").mkdir(parents=True)
    (other_root / "extensions" / "index.ts").write_text("export default function () {}\n")
    manifest = {"name": "pi-other", "version": "1.0.0", "pi": {"extensions": ["./extensions"]}}
    (other_root / "package.json").write_text(json.dumps(manifest))
    other = install_prepared(home, other_root).package.record.id
    targets = {
        "another package's cache": compile_cache(home, cached) / "planted.mjs",
        "its own cache": compile_cache(home, other) / "planted.mjs",
    }
    shared = compile_cache_dir()
    if shared is not None:
        targets["the shared compile cache"] = shared / "planted"
    node = find_node(MIN_NODE)
    assert node is not None
    with StateStore.open(home) as store:
        status = store.get_package(other)
    assert status is not None
    entry = load_adapters().inspect(status.record.path)
    sandbox = policy_for_entry(
        entry, sorted(status.granted), home=home, workspace=tmp_path,
        runtime=[*node_runtime_paths(node), sidecar_dir()],
    )  # fmt: skip
    compile_cache(home, other).mkdir(parents=True, exist_ok=True)
    done = spawn_confined(
        [node, "-e", WRITE, *map(str, targets.values())], policy=sandbox.policy,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
        env={**child_environment(), **sandbox.environment},
    )  # fmt: skip
    out, err = done.communicate(timeout=60)
    found = dict(json.loads(line) for line in out.decode().splitlines())
    assert found == {
        str(targets["another package's cache"]): "EACCES",
        str(targets["its own cache"]): "written",
        **({str(targets["the shared compile cache"]): "EACCES"} if shared else {}),
    }, err.decode()


def test_a_changed_source_is_compiled_again_not_run_from_its_old_entry(tmp_path: Path) -> None:
    node = find_node(MIN_NODE)
    assert node is not None
    cache, source = tmp_path / "jiti", tmp_path / "pkg" / "value.ts"
    source.parent.mkdir()
    shim = json.dumps((sidecar_dir() / "lib" / "pi" / "jiti.mjs").as_uri())

    def load() -> str:
        done = subprocess.run(
            [node, "--input-type=module", "-e", LOAD % shim, str(cache), str(source)],
            capture_output=True, text=True, timeout=120, cwd=sidecar_dir(), check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def entries() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in cache.iterdir()}

    source.write_text("export const value: string = 'one';\n")
    assert load() == "one"
    first = entries()
    assert load() == "one" and entries() == first  # read from the cache, nothing rewritten
    source.write_text("export const value: string = 'two';\n")  # same path, same size
    assert load() == "two"
    assert entries() != first
