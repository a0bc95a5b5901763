"""What makes a Node sidecar start cheaply, prepared once by ``gateway setup`` in the
sidecar's folder (docs/pi.md, "Cold start"): the bundles (``sidecars/bundle.mjs``: TypeBox,
the Pi SDK, OpenClaw's config validator) and Node's compile cache of the sidecar's modules
and of the OpenClaw SDK when it is installed (``COMPILE_CACHE``), written once and only read
by every sidecar. A checkout's
``bundle.mjs`` is edited in place: bundles made by another bundler are made again."""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from adapters._node_flags import TIER_UP_MODULE, node_flags
from gateway.runtime import NpmError, run_tool

__all__ = [
    "COMPILE_CACHE",
    "bundle",
    "bundler_digest",
    "prepared",
    "warm_compile_cache",
    "warm_digest",
]

COMPILE_CACHE = Path("node_modules") / ".gateway" / "compile-cache"
"""Node's compile cache (``NODE_COMPILE_CACHE``) of the sidecar's own modules, its bundles
and jiti, relative to the sidecar's folder; setup fills it, sidecars only read it."""
_PI_BUNDLE = Path("node_modules") / ".gateway" / "pi" / "manifest.json"
_OPENCLAW_BUNDLE = Path("node_modules") / ".gateway" / "openclaw" / "manifest.json"
_OPENCLAW_SDK = Path("node_modules") / "openclaw" / "package.json"
_WARM_TIMEOUT = 300
"""Seconds for the warming start: importing every module of the OpenClaw SDK takes ~15 s
of CPU, several times that on a busy machine."""
_BUNDLED_BY = Path("node_modules") / ".gateway" / "bundler.sha256"
"""The digest of the ``bundle.mjs`` that made the bundles: in a checkout, where the
sources are edited in place, a changed bundler means bundles to make again."""
_WARMED_WITH = Path("node_modules") / ".gateway" / "compile-cache.sha256"
"""The digest of what the compile cache was made with (``warm_digest``): V8 takes an entry
only under the flags it was made with, so other flags (a checkout's edit, a new gateway)
mean a cache no start uses, to make again."""
_WARM_EXTENSION = """import { Type } from "typebox";
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";
import * as sdk from "@earendil-works/pi-coding-agent";
export default function (pi) {
  pi.registerTool({
    name: "warm", description: String(typeof sdk.getAgentDir),
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) {
      const valid = Value.Check(Compile(Type.String()), params.text);
      return { content: [{ type: "text", text: String(valid) }] };
    },
  });
}
"""
"""A Pi extension that loads what Pi packages load (TypeBox's three entries, pi's SDK), so
the compile cache holds every module a package's sidecar may load from the sidecar's folder."""


def bundle(node: str, where: Path, env: dict[str, str], progress: Callable[[str], None]) -> None:
    """Bundle TypeBox and the Pi SDK (``sidecars/bundle.mjs``): most of a Pi package's
    start; and, when the OpenClaw SDK is installed, the config validator its host runs for a
    plugin with a config schema. Without them the sidecar loads them as installed, slower,
    so a failure is said and setup goes on."""
    progress("bundling TypeBox and the Pi SDK for the Pi host (~50 files instead of ~1,800)")
    try:
        run_tool([node, str(where / "bundle.mjs")], where, "bundling TypeBox", env=env, timeout=120)
    except NpmError as error:
        progress(f"TypeBox and the Pi SDK not bundled ({error}); Pi packages start slower")
        return
    (where / _BUNDLED_BY).write_text(bundler_digest(where), encoding="utf-8")


def bundler_digest(where: Path) -> str:
    return hashlib.sha256((where / "bundle.mjs").read_bytes()).hexdigest()


def warm_compile_cache(
    node: str, where: Path, env: dict[str, str], progress: Callable[[str], None]
) -> None:
    """Start the sidecar once on an extension that loads what Pi packages load and, when the
    OpenClaw SDK is installed, a plugin that imports every subpath of it, with
    ``NODE_COMPILE_CACHE`` pointing at ``COMPILE_CACHE``: Node writes the compiled code of
    every module it loaded from the sidecar's folder there (at exit). With the launch's own
    Node flags, which V8 checks before it uses a cache entry."""

    script = where / "sidecar.mjs"
    if not (script.is_file() and (where / "node_modules" / "@earendil-works").is_dir()):
        return  # no Pi host to warm up
    progress("compiling the Node sidecar's modules once for every sidecar (Node's compile cache)")
    cache = where / COMPILE_CACHE
    shutil.rmtree(cache, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="gateway-warm-") as scratch:
        packages = [_warm_pi(Path(scratch))]
        subpaths = _sdk_subpaths(where)
        if subpaths:
            packages.append(_warm_openclaw(Path(scratch), subpaths))
        init = {"type": "initialize", "version": 1, "session_id": "warm", "workspace": scratch}
        try:
            done = subprocess.run(
                [node, *node_flags(where), str(script), json.dumps({"packages": packages})],
                input=json.dumps(init) + "\n", capture_output=True, text=True, cwd=scratch,
                env={**env, "NODE_COMPILE_CACHE": str(cache)}, timeout=_WARM_TIMEOUT,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as error:
            done = None
            progress(f"compile cache not written ({error}); sidecars compile their modules")
        if done is not None and '"type":"register"' not in done.stdout:
            progress(f"compile cache not written: {done.stderr.strip()[-300:]}")
            shutil.rmtree(cache, ignore_errors=True)
        elif done is not None:
            (where / _WARMED_WITH).write_text(warm_digest(where), encoding="utf-8")


def _warm_pi(scratch: Path) -> dict[str, object]:
    extension = scratch / "warm.ts"
    extension.write_text(_WARM_EXTENSION, encoding="utf-8")
    return {
        "id": "warm", "host": "pi", "root": str(scratch), "entries": [str(extension)],
        "cache": str(scratch / "jiti"),
    }  # fmt: skip


def _sdk_subpaths(where: Path) -> list[str]:
    """The subpaths the installed OpenClaw SDK exports (none when it is not installed)."""
    try:
        manifest = json.loads((where / _OPENCLAW_SDK).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    exports = manifest.get("exports") if isinstance(manifest, dict) else None
    prefix = "./plugin-sdk/"
    return sorted(
        key[len(prefix) :]
        for key in (exports if isinstance(exports, dict) else {})
        if key.startswith(prefix) and "*" not in key
    )


def _warm_openclaw(scratch: Path, subpaths: list[str]) -> dict[str, object]:
    """A plugin importing every SDK subpath: what any plugin may load from the SDK."""
    root = scratch / "openclaw"
    root.mkdir()
    entry = root / "index.mjs"
    imports = "".join(f"import {json.dumps('openclaw/plugin-sdk/' + name)};\n" for name in subpaths)
    entry.write_text(imports + "export default function register() {}\n", encoding="utf-8")
    return {
        "id": "warm-openclaw", "host": "openclaw", "root": str(root), "entries": [str(entry)],
        "pluginId": "warm", "name": "warm", "version": "1.0.0", "loader": "native",
        "configFile": str(root / "config.json"), "stateDir": str(root / "state"),
    }  # fmt: skip


def warm_digest(where: Path) -> str:
    """What decides whether the compile cache in ``where`` serves a start: the sidecar's
    Node flags (its folder aside), the module that sets the rest (``TIER_UP_MODULE``), and
    the OpenClaw SDK it holds the modules of (its manifest; none before it is installed)."""
    digest = hashlib.sha256("\0".join(node_flags(Path("/"))).encode())
    for part in (TIER_UP_MODULE, _OPENCLAW_SDK):
        with contextlib.suppress(OSError):
            digest.update(b"\0" + (where / part).read_bytes())
    return digest.hexdigest()


def prepared(where: Path, *, openclaw: bool) -> bool:
    """Whether this version's bundles and compile cache are there (setup makes them), made
    by this ``bundle.mjs``, the cache with this version's Node flags and installed SDK."""
    return not (where / "bundle.mjs").is_file() or (
        (where / _PI_BUNDLE).is_file()
        and (where / COMPILE_CACHE).is_dir()
        and ((where / _OPENCLAW_BUNDLE).is_file() or not openclaw)
        and _read(where / _BUNDLED_BY) == bundler_digest(where)
        and _read(where / _WARMED_WITH) == warm_digest(where)
    )


def _read(stamp: Path) -> str | None:
    try:
        return stamp.read_text(encoding="utf-8").strip()
    except OSError:
        return None
