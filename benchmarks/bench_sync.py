"""``gateway sync`` of a lived-in home's lockfile into an empty home (issue 29): wall time,
and how many times each package's source was read, against another revision of the
gateway in the same run.

    python benchmarks/bench_sync.py --base REV [--rounds N] [--root DIR] [--registry KEY…]

The home is ``benchmarks._home`` (31 packages of the seven formats: folders, packed real npm
packages, Claude Code and Agent Plugins, generated ones), each trusted, granted and
enabled, then ``gateway lock``-ed. ``--registry KEY…``: those of its packed npm packages
(``pi-aliases``, ``pi-processes``, ``pi-prompts``, ``agentuity-pi``, ``ollama-search``,
``context-compactor``, ``nostr``) fetched from the npm registry at the same version instead
(``npm pack`` then runs, and npm installs the dependencies the fixtures carry bundled).
``--root DIR`` keeps the homes in DIR; a later run with it syncs the same lockfile again.
``--base REV``: this repository at REV (``git archive``, with this checkout's ``sidecars``)
run with ``PYTHONPATH`` pointing at it; the two trees alternate round by round, each round
syncing into a fresh empty home (``gateway sync --accept``, a fresh process, as a user
runs it). A source read is a folder copied, an npm tarball unpacked, a repository cloned or
an ``npm pack`` — counted by wrapping the functions that do them in the process that syncs.

Nothing here is a test: the figures go to docs/performance/home.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._home import HOME_PACKAGES, ROOT, Home, build_home

# The sync, run with its source reads counted (written as JSON to $BENCH_SYNC_READS).
DRIVER = """
import collections, json, os, sys
from gateway.packages import _npm, _sources
reads = collections.Counter()
def counting(module, name, kind, counts=lambda *a: True):
    real = getattr(module, name)
    def wrapper(*args, **kwargs):
        if counts(*args):
            reads[kind] += 1
        return real(*args, **kwargs)
    setattr(module, name, wrapper)
counting(_sources, "copy_tree", "folder copied")
counting(_npm, "extract_tarball", "tarball unpacked")
counting(_sources, "run_tool", "repository cloned", lambda command, *a: "clone" in command)
counting(_npm, "run_tool", "npm pack", lambda command, *a: "pack" in command)
counting(_npm, "run_tool", "npm install of dependencies", lambda c, *a: {"ci", "install"} & set(c))
from gateway.cli import main
try:
    code = main(sys.argv[1:])
finally:
    with open(os.environ["BENCH_SYNC_READS"], "w") as out:
        json.dump(reads, out)
sys.exit(code)
"""


def base_tree(revision: str, folder: Path) -> Path:
    """This repository at ``revision``, importable, using this checkout's sidecars."""
    tree = folder / f"base-{revision}"
    if not tree.is_dir():
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True,
                                 capture_output=True).stdout  # fmt: skip
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        shutil.rmtree(tree / "sidecars")
        (tree / "sidecars").symlink_to(ROOT / "sidecars")
    return tree


REGISTRY = {
    "pi-aliases": "pi-aliases@1.0.7",
    "pi-processes": "@aliou/pi-processes@0.12.0",
    "pi-prompts": "pi-prompt-template-model@0.12.2",
    "agentuity-pi": "@agentuity/pi@2.0.21",
    "ollama-search": "@ollama/openclaw-web-search@0.2.2",
    "context-compactor": "jasper-context-compactor@0.4.1",
    "nostr": "@openclaw/nostr@2026.9.5",
}
"""The packed npm packages of ``_home`` and the registry's spec of each."""


def source_home(root: Path, registry: list[str]) -> tuple[Home, Path]:
    lockfile = root / "gateway.lock"
    if lockfile.is_file():  # built by an earlier run with this --root
        user = root / "source" / "user"
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
        env |= {"HOME": str(user), "GATEWAY_HOME": str(user / ".gateway"), "PATH": path}
        return Home(root / "source", env, root / "source" / "workspace"), lockfile
    home = build_home(root / "source", only=[p.key for p in HOME_PACKAGES if p.key not in registry])
    for key in registry:
        installed = home.gateway("install", REGISTRY[key], "--kind", "npm", "--json")
        report = json.loads(installed.stdout)
        if report.get("requested_permissions"):
            home.gateway("permissions", report["id"], *report["requested_permissions"])
        home.gateway("trust", report["id"])
        home.gateway("enable", report["id"])
    home.gateway("lock", "--out", str(lockfile))
    return home, lockfile


def sync_once(
    home: Home, lockfile: Path, target: Path, tree: Path | None
) -> tuple[float, float, dict]:
    env = {**home.env, "GATEWAY_HOME": str(target / ".gateway")}
    env["BENCH_SYNC_READS"] = str(target / "reads.json")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    target.mkdir(parents=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, "sync", "--lockfile", str(lockfile), "--accept", "--json"],
        env=env, cwd=home.workspace, capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise RuntimeError(f"sync failed ({tree or 'this tree'}): {done.stdout}{done.stderr}")
    report = json.loads(done.stdout)
    reads = json.loads((target / "reads.json").read_text())
    reads["packages installed"] = len(report["installed"])
    return elapsed, cpu, reads


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--root", help="keep the homes here")
    parser.add_argument(
        "--registry", nargs="*", default=[], choices=sorted(REGISTRY), metavar="KEY",
        help="these packed packages from npm's registry",
    )  # fmt: skip
    args = parser.parse_args()
    root = Path(args.root) if args.root else Path(tempfile.mkdtemp(prefix="bench-sync-"))
    print(f"load average {load()}: building the source home in {root}", flush=True)
    home, lockfile = source_home(root, args.registry)
    count = len(json.loads(lockfile.read_text())["packages"])
    trees: dict[str, Path | None] = {args.base: base_tree(args.base, root), "this tree": None}
    times: dict[str, list[float]] = {name: [] for name in trees}
    cpus: dict[str, list[float]] = {name: [] for name in trees}
    for round_ in range(args.rounds):
        order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
        for name in order:
            target = root / f"round{round_}-{'base' if trees[name] else 'this'}"
            shutil.rmtree(target, ignore_errors=True)
            elapsed, cpu, reads = sync_once(home, lockfile, target, trees[name])
            times[name].append(elapsed)
            cpus[name].append(cpu)
            print(f"round {round_ + 1} {name}: {elapsed:.1f} s (CPU {cpu:.1f} s), {reads}; "
                  f"load {load()}", flush=True)  # fmt: skip
            shutil.rmtree(target, ignore_errors=True)
    print(f"sync --accept of {count} packages into an empty home, medians of {args.rounds}:")
    for name in trees:
        for what, values in (("wall", times[name]), ("CPU", cpus[name])):
            each = ", ".join(f"{v:.1f}" for v in values)
            print(f"  {name}, {what}: {statistics.median(values):.1f} s ({each})")
    print(f"load average {load()}")


if __name__ == "__main__":
    main()
