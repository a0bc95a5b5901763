"""A Pi package's TypeScript is compiled when it is installed (adapters/pi/_precompile.py,
sidecars/lib/pi/compile.mjs): into the cache its first start reads, following its imports
into its own TypeScript dependencies, and running none of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.pi._precompile import compile_cache
from gateway import open_gateway
from tests._prepared import install_prepared, snapshot

pytestmark = pytest.mark.anyio

INDEX = """import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "typebox";
import { shout } from "./lib/shout";
import { twice } from "ts-dep";
// Runs when the module is imported, never when it is compiled.
writeFileSync(join(process.env.TMPDIR ?? "/tmp", "pi-module-ran"), "ran");
export default function (pi: any) {
  pi.registerTool({
    name: "shout", description: "d", parameters: Type.Object({ text: Type.String() }),
    async execute(_id: string, p: { text: string }) {
      const lazy = await import("./lib/lazy");
      return { content: [{ type: "text", text: twice(shout(p.text)) + lazy.mark }] };
    },
  });
}
"""


def write_package(root: Path, broken: bool = False) -> Path:
    folder = root / "pi-precompiled"
    files = {
        "package.json": json.dumps(
            {
                "name": "pi-precompiled",
                "version": "1.0.0",
                "pi": {"extensions": ["./extensions/index.ts"]},
            }
        ),
        "extensions/index.ts": INDEX,
        "extensions/lib/shout.ts": "export const shout = (s: string): string => s.toUpperCase();\n",
        "extensions/lib/lazy.ts": "export const mark: string = '!';\n",
        # A dependency shipping TypeScript sources, as @aliou/pi-utils-* do.
        "node_modules/ts-dep/package.json": json.dumps({"name": "ts-dep", "main": "index.ts"}),
        "node_modules/ts-dep/index.ts": "export const twice = (s: string): string => s + s;\n",
    }
    if broken:
        files["extensions/lib/shout.ts"] = "export const shout = (s: string =>;\n"
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


async def test_install_compiles_what_the_first_start_then_reads(workspace: Any) -> None:
    home = workspace.config.home
    report = install_prepared(home, write_package(workspace.root.parent / "src"))
    assert [d.code for d in report.diagnostics if d.code.startswith("pi.precompile")] == []
    cache = compile_cache(home, "pi-precompiled")
    compiled = snapshot(cache)
    # index, its helper, the dynamically imported module and the TS dependency.
    # jiti names an entry <folder>-<stem>.<path hash>.mjs.
    stems = {name.rsplit(".", 2)[0] for name in compiled}
    assert stems == {"extensions-index", "lib-shout", "lib-lazy", "ts-dep-index"}, compiled
    assert not (cache.parent / "pi-module-ran").exists()  # nothing of it ran
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("shout", {"text": "hi"})).content == "HIHI!"
    assert snapshot(cache) == compiled  # every module came from the cache: none rewritten


async def test_a_module_that_does_not_compile_is_a_warning_and_the_install_stands(
    workspace: Any,
) -> None:
    home = workspace.config.home
    report = install_prepared(home, write_package(workspace.root.parent / "src", broken=True))
    (warning,) = [d for d in report.diagnostics if d.code == "pi.precompile_failed"]
    assert "extensions/lib/shout.ts did not compile" in warning.message
    assert report.package.record.id == "pi-precompiled"
