"""Bundling a Nu package's tools at install: "Nu bundles each tool with everything it
imports when it installs the package".

``prepare_bundles`` runs the sidecar's ``nu-bundle.mjs`` (esbuild, pinned with the
sidecar's modules) on the staged package: no package code runs, and every import must
stay inside the package (an import that leaves it refuses that tool alone, naming the
import). The bundles and a manifest go to ``.nu-bundles/`` in the package folder, so the
package's content hash — what the user trusts — covers exactly the code that will run.

Versioned bundles: "a tool needs a higher version whenever its code or anything it
imports changes". Each bundle records the digest of the sources it was built from and the
tool version it was built for; an update whose sources differ while the version did not
rise keeps the previous bundle, with a diagnostic naming the tool.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from adapters._sidecars import SETUP_COMMAND, sidecar_dir, sidecar_problem
from adapters.nu import _codes as codes
from gateway.base import Diagnostic, FileNames, name_problem
from gateway.model import CatalogEntry, Contribution
from gateway.runtime import MIN_SIDECAR_NODE, find_node
from gateway.sandbox import safe_name

__all__ = [
    "BUNDLER",
    "BUNDLES_DIR",
    "BundleRecord",
    "Bundles",
    "bundler_problem",
    "prepare_bundles",
    "read_bundles",
]

BUNDLES_DIR: Final = ".nu-bundles"
MANIFEST: Final = "manifest.json"
BUNDLER: Final = "nu-bundle.mjs"
FORMAT: Final = 1
TIMEOUT: Final = 300.0
"""Seconds for bundling every tool of one package (esbuild takes milliseconds per tool)."""


@dataclass(frozen=True, slots=True)
class BundleRecord:
    file: str
    """The bundle's file name in ``.nu-bundles/``."""
    version: int
    """The tool ``version`` the bundle was built from."""
    sources: str
    """Digest of every source file the bundle was built from (paths and contents)."""
    kept: bool = False
    """An update changed the sources but not the version: this is the earlier bundle."""


@dataclass(slots=True)
class Bundles:
    tools: dict[str, BundleRecord] = field(default_factory=dict)
    refused: dict[str, dict[str, str]] = field(default_factory=dict)
    """Tool name → {code, message}: why it has no bundle."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "tools": {name: asdict(record) for name, record in sorted(self.tools.items())},
            "refused": dict(sorted(self.refused.items())),
        }


def read_bundles(root: Path) -> Bundles | None:
    """The manifest an install wrote, or None (not installed by ``gateway install``)."""
    try:
        data = json.loads((root / BUNDLES_DIR / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    bundles = Bundles()
    for name, record in (data.get("tools") or {}).items():
        try:
            found = BundleRecord(**record)
        except TypeError:
            continue
        # One file in .nu-bundles/ (its path becomes a read grant of the tool's process).
        if isinstance(found.file, str) and name_problem(found.file, portable=False) is None:
            bundles.tools[str(name)] = found
    for name, refusal in (data.get("refused") or {}).items():
        if isinstance(refusal, dict):
            bundles.refused[str(name)] = {k: str(v) for k, v in refusal.items()}
    return bundles


def bundler_problem() -> str | None:
    """None when tools can be bundled here, else why not (naming ``gateway setup``)."""
    problem = sidecar_problem(BUNDLER)
    if problem is not None:
        return problem
    if not (sidecar_dir() / "node_modules" / "esbuild" / "package.json").is_file():
        return f"esbuild is not installed in {sidecar_dir()}; run `{SETUP_COMMAND}`"
    if find_node(MIN_SIDECAR_NODE) is None:
        return "no Node >= 22.19 to run esbuild"
    return None


def _bundlable(entry: CatalogEntry) -> list[Contribution]:
    return [
        c
        for c in entry.contributions
        if c.kind == "tool"
        and c.detail.get("runtime") == "nu-tool"
        and c.detail.get("valid")
        and c.detail.get("entry")
        and not c.detail.get("refused")
    ]


def prepare_bundles(entry: CatalogEntry, root: Path, previous: Path | None) -> list[Diagnostic]:
    """Bundle the tools of the staged package at ``root``; ``previous`` is the installed
    version it replaces. Returns the diagnostics (each refused or kept tool is named)."""
    found: list[Diagnostic] = []
    target = root / BUNDLES_DIR
    if target.exists() or target.is_symlink():
        found.append(codes.NU_BUNDLES_REPLACED(f"{BUNDLES_DIR}: shipped by the package; discarded"))
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        else:
            target.unlink()
    tools = _bundlable(entry)
    if not tools:
        return _finish(found, entry.id)
    target.mkdir(mode=0o755)
    bundles = Bundles()
    problem = bundler_problem()
    results = _run_bundler(root, tools) if problem is None else {}
    before = read_bundles(previous) if previous is not None else None
    # One file each, also where "Fmt" and "fmt" are one file (macOS, Windows).
    files = FileNames()
    for tool in tools:
        where = f"{tool.detail['path']}: tool {tool.name!r}"
        result = results.get(tool.name)
        file = files.unique(safe_name(tool.name), ".mjs", portable=False)
        if file is None:
            result = {"ok": False, "message": "its bundle's file name is another tool's"}
        if problem is not None or not isinstance(result, dict):
            why = problem or "the bundler gave no result"
            message = f"{where} not bundled: {why}; refused"
            hint = f"{SETUP_COMMAND}, then install the package again"
            found.append(codes.NU_BUNDLER_UNAVAILABLE(message, contribution=tool.name, hint=hint))
            bundles.refused[tool.name] = {"code": "nu.bundler_unavailable", "message": message}
            continue
        if not result.get("ok") or file is None:
            refusal = _refusal(tool.name, where, result, root)
            found.append(refusal)
            bundles.refused[tool.name] = {"code": refusal.code, "message": refusal.message}
            continue
        record = _record(root, tool, result, file)
        kept = _kept(before, previous, tool, record, target)
        if kept is not None:
            record = kept
            found.append(
                codes.NU_TOOL_VERSION_NOT_BUMPED(
                    f"{where}: its code changed but its version is still {tool.detail['version']};"
                    f" kept at its previous bundle (version {kept.version})",
                    contribution=tool.name,
                )
            )
        else:
            (target / record.file).write_text(str(result["code"]), encoding="utf-8")
        bundles.tools[tool.name] = record
    text = json.dumps(bundles.to_dict(), indent=2, sort_keys=True) + "\n"
    (target / MANIFEST).write_text(text, encoding="utf-8")
    return _finish(found, entry.id)


def _finish(found: list[Diagnostic], package: str) -> list[Diagnostic]:
    return [replace(d, package=d.package or package) for d in found]


def _run_bundler(root: Path, tools: list[Contribution]) -> dict[str, Any]:
    node = find_node(MIN_SIDECAR_NODE)
    assert node is not None  # bundler_problem() said so
    request = {
        "root": str(root),
        "tools": [{"name": t.name, "entry": t.detail["entry"]} for t in tools],
    }
    try:
        done = subprocess.run(
            [node, str(sidecar_dir() / BUNDLER)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=sidecar_dir(),
            # esbuild reads nothing from the environment that matters; the user's
            # ESBUILD_BINARY_PATH or NODE_OPTIONS must not pick what runs.
            env={"PATH": os.environ.get("PATH", "")},
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return {
            t.name: {"ok": False, "kind": "failed", "message": f"the bundler failed: {error}"}
            for t in tools
        }
    try:
        results = json.loads(done.stdout)["tools"]
    except (ValueError, KeyError, TypeError):
        tail = done.stderr.strip()[-500:]
        return {
            t.name: {"ok": False, "kind": "failed", "message": f"the bundler failed: {tail}"}
            for t in tools
        }
    return results if isinstance(results, dict) else {}


def _refusal(name: str, where: str, result: dict[str, Any], root: Path) -> Diagnostic:
    message = str(result.get("message", "")).replace(f"{root}{os.sep}", "")
    if result.get("kind") == "outside":
        imports = ", ".join(f'"{i}"' for i in result.get("imports") or [])
        return codes.NU_IMPORT_OUTSIDE(
            f"{where} imports {imports}, which leaves the package ({message}); refused",
            contribution=name,
        )
    return codes.NU_BUNDLE_FAILED(
        f"{where} cannot be bundled: {message}; refused", contribution=name
    )


def _sources_digest(root: Path, inputs: list[str]) -> str:
    digest = hashlib.sha256()
    for rel in sorted(inputs):
        digest.update(rel.encode() + b"\0")
        try:
            digest.update(hashlib.sha256((root / rel).read_bytes()).digest())
        except OSError:
            digest.update(b"?")
    return "sha256:" + digest.hexdigest()


def _record(root: Path, tool: Contribution, result: dict[str, Any], file: str) -> BundleRecord:
    inputs = [str(i) for i in result.get("inputs") or []]
    return BundleRecord(
        file=file,
        version=int(tool.detail["version"]),
        sources=_sources_digest(root, inputs),
    )


def _kept(
    before: Bundles | None,
    previous: Path | None,
    tool: Contribution,
    new: BundleRecord,
    target: Path,
) -> BundleRecord | None:
    """The previous bundle, copied over, when the code changed and the version did not rise."""
    old = before.tools.get(tool.name) if before is not None else None
    if old is None or previous is None or old.sources == new.sources or new.version > old.version:
        return None
    try:
        shutil.copyfile(previous / BUNDLES_DIR / old.file, target / new.file)
    except OSError:
        return None  # the earlier bundle is gone: the new one is all there is
    return BundleRecord(new.file, old.version, old.sources, kept=True)
