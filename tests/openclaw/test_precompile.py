"""What OpenClaw's plugin loader has jiti compile is compiled when the plugin is installed
(adapters/openclaw/_precompile.py, sidecars/lib/openclaw/compile.mjs): into the plugin's jiti
cache, with the loader's own options, under the loader of the OpenClaw the plugin declares,
running none of it; every start then reads it, and a changed source is compiled again."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adapters._precompile import compile_cache
from adapters._sidecars import sidecar_dir
from adapters.openclaw import MIN_NODE
from gateway import open_gateway
from gateway.packages import load_adapters
from gateway.runtime import find_node
from tests._prepared import install_prepared, snapshot

from .conftest import config_for

pytestmark = pytest.mark.anyio

INDEX = """import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { shout } from "./lib/shout";
// Runs when the module is loaded, never when it is compiled.
writeFileSync(join(process.env.TMPDIR ?? "/tmp", "plugin-module-ran"), "ran");
export default {
  id: "precompiled",
  register(api: any) {
    api.registerTool({
      name: "pc_shout", description: "d", parameters: { type: "object" },
      async execute(_id: string, p: { text: string }) {
        return { content: [{ type: "text", text: shout(p.text) }] };
      },
    });
  },
};
"""
LOAD = """
import { importEntry, resolveExport } from %s;
const { module } = await importEntry(process.argv[2], "jiti", process.argv[1]);
let tool;
resolveExport(module).register({ registerTool: (t) => { tool = t; } });
console.log((await tool.execute("1", { text: "hi" })).content[0].text);
"""
SHOUT = "export const shout = (s: string): string => s.toUpperCase();\n"
BUILT = "export default { id: 'precompiled', register() {} };\n"
# The OpenClaw each declaration makes the loader: jiti's transform (2026.3, its entry
# required), or 2026.9's native loader (a TypeScript entry imported through jiti).
LOADERS = {"jiti": "^2026.3.2", "native": "^2026.9.0"}


def write_plugin(root: Path, peer: str, *, entry: str = "index.ts", broken: bool = False) -> Path:
    files = {
        "package.json": json.dumps(
            {
                "name": "precompiled",
                "version": "1.0.0",
                "type": "module",
                "peerDependencies": {"openclaw": peer},
                "openclaw": {"extensions": [f"./{entry}"]},
            }
        ),
        "openclaw.plugin.json": json.dumps(
            {
                "id": "precompiled",
                "configSchema": {"type": "object"},
                "contracts": {"tools": ["pc_shout"]},
            }
        ),
        entry: INDEX if entry.endswith(".ts") else BUILT,
        "lib/shout.ts": "export const shout = (s: string =>;\n" if broken else SHOUT,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


async def shout(home: Path) -> Any:
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        assert [d.message for d in gw.diagnostics] == []
        return (await gw.call_tool("pc_shout", {"text": "hi"})).content


@pytest.mark.parametrize("loader", sorted(LOADERS))
async def test_install_compiles_what_every_start_then_reads(tmp_path: Path, loader: str) -> None:
    home = tmp_path / "user" / ".gateway"
    report = install_prepared(home, write_plugin(tmp_path / "src", LOADERS[loader]))
    entry = load_adapters().inspect(report.package.record.path)
    assert entry.metadata.get("loader", "native") == loader
    assert [d.code for d in report.diagnostics if "precompile" in d.code] == []
    cache = compile_cache(home, "precompiled")
    compiled = snapshot(cache)
    # jiti names an entry <folder>-<stem>.<path hash>.<cjs: required | mjs: imported>.
    suffix = "cjs" if loader == "jiti" else "mjs"
    assert {(n.split("-", 1)[1].split(".")[0], n.rsplit(".", 1)[1]) for n in compiled} == {
        ("index", suffix),
        ("shout", "cjs" if loader == "jiti" else suffix),
    }, compiled
    assert not (cache.parent / "plugin-module-ran").exists()  # nothing of it ran
    for _ in range(2):
        assert await shout(home) == "HI"
        assert (cache.parent / "plugin-module-ran").exists()
        assert snapshot(cache) == compiled  # every module came from the cache: none rewritten


def test_a_changed_source_is_compiled_again_not_run_from_its_old_entry(
    tmp_path: Path,
) -> None:
    home = tmp_path / "user" / ".gateway"
    report = install_prepared(home, write_plugin(tmp_path / "src", LOADERS["jiti"]))
    cache, root = compile_cache(home, "precompiled"), report.package.record.path
    compiled = snapshot(cache)
    node = find_node(MIN_NODE)
    assert node is not None
    loader = json.dumps((sidecar_dir() / "lib" / "openclaw" / "loader.mjs").as_uri())

    def load() -> str:  # the sidecar's loader, as its host calls it, with the plugin's cache
        done = subprocess.run(
            [node, "--input-type=module", "-e", LOAD % loader, str(cache), str(root / "index.ts")],
            capture_output=True, text=True, timeout=120, cwd=sidecar_dir(), check=False,
            env={"PATH": os.environ.get("PATH", ""), "TMPDIR": str(tmp_path)},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert load() == "HI" and snapshot(cache) == compiled  # read, not written
    changed = root / "lib" / "changed.ts"  # a new file: the installed one may be shared
    changed.write_text("export const shout = (s: string): string => `${s}!`;\n")
    os.replace(changed, root / "lib" / "shout.ts")
    assert load() == "hi!"
    now = snapshot(cache)
    (rewritten,) = [name for name in compiled if now[name] != compiled[name]]
    assert rewritten.startswith("lib-shout.") and set(now) == set(compiled)


async def test_a_plugin_of_built_javascript_under_the_native_loader_compiles_nothing(
    tmp_path: Path,
) -> None:
    home = tmp_path / "user" / ".gateway"
    report = install_prepared(
        home, write_plugin(tmp_path / "src", LOADERS["native"], entry="index.js")
    )
    assert [d.code for d in report.diagnostics if "precompile" in d.code] == []
    assert not compile_cache(home, "precompiled").exists()


async def test_a_module_that_does_not_compile_is_a_warning_and_the_install_stands(
    tmp_path: Path,
) -> None:
    home = tmp_path / "user" / ".gateway"
    report = install_prepared(home, write_plugin(tmp_path / "src", LOADERS["jiti"], broken=True))
    (warning,) = [d for d in report.diagnostics if d.code == "openclaw.precompile_failed"]
    assert "lib/shout.ts did not compile" in warning.message
    assert report.package.record.id == "precompiled"
