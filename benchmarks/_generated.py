"""The small generated packages of the benchmarks' homes: a nimlet extension, a nanobot
package and a Pi package, one echo tool each (``nim_echo_N``, ``nb_echo_N``, ``pi_echo_N``),
made under a folder by index — the noise of a home built over months. One source for every
home that holds them (``_home.py``, ``bench_cli.py``, ``bench_startup.py``,
``tool_search/home.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

__all__ = ["ECHO", "NANOBOT_SOURCE", "nanobot_package", "nimlet_package", "pi_package"]

ECHO = Path(__file__).resolve().parent / "echo_extension.py"
"""The nimlet echo extension (a Python script) every benchmark starts."""

NANOBOT_SOURCE = """
class Echo:
    name = "nb_echo_@N@"
    description = "echo"
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def execute(self, text=""):
        return text


def register(api):
    api.register_tool(Echo())
"""
_PI_SOURCE = """
import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "pi_echo_@N@", label: "echo", description: "echo",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) { return { content: [{ type: "text", text: params.text }] }; },
  });@HOOK@
}
"""
_PI_HOOK = '\n  pi.on("tool_call", async () => undefined);'


def nimlet_package(root: Path, index: int) -> Path:
    """``root/nimN``: the echo extension as ``./echo.py``, run by this interpreter."""
    folder = root / f"nim{index}"
    folder.mkdir(parents=True)
    script = folder / "echo.py"
    source = ECHO.read_text().replace('"name": "echo"', f'"name": "nim_echo_{index}"')
    script.write_text(f"#!{sys.executable}\n" + source)
    script.chmod(0o755)
    manifest = {"name": f"nim{index}", "command": ["./echo.py"]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    return folder


def nanobot_package(root: Path, index: int) -> Path:
    """``root/nbN``: a Python nanobot package (id ``bench.nbN``)."""
    folder = root / f"nb{index}"
    (folder / f"nb{index}").mkdir(parents=True)
    (folder / f"nb{index}" / "__init__.py").write_text(NANOBOT_SOURCE.replace("@N@", str(index)))
    manifest = {
        "id": f"bench.nb{index}", "name": f"nb{index}", "version": "1.0.0",
        "runtime": "python", "entry": f"nb{index}:register",
        "contributions": [{"kind": "tool", "name": f"nb_echo_{index}"}],
    }  # fmt: skip
    (folder / "nanobot.extension.json").write_text(json.dumps(manifest))
    return folder


def pi_package(root: Path, index: int, *, hooked: bool = False) -> Path:
    """``root/piN``: a Pi package (``bench-pi-N``); ``hooked``: its extension also listens
    to ``tool_call`` (as many real ones do), so every call of the home waits on it."""
    folder = root / f"pi{index}"
    (folder / "extensions").mkdir(parents=True)
    package = {"name": f"bench-pi-{index}", "version": "1.0.0",
               "pi": {"extensions": ["./extensions/index.ts"]}}  # fmt: skip
    (folder / "package.json").write_text(json.dumps(package))
    source = _PI_SOURCE.replace("@N@", str(index)).replace("@HOOK@", _PI_HOOK if hooked else "")
    (folder / "extensions" / "index.ts").write_text(source)
    return folder
