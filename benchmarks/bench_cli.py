"""CLI start benchmark: what a short ``gateway`` command costs against what it must do.

    python benchmarks/bench_cli.py [--rounds N] [--quick]

Every figure is a same-run ratio of medians; the variants are interleaved round by round,
so the drift of a noisy machine hits both sides of a ratio alike. Each run is a fresh
process started from here, timed from spawn to its answer (the checkout's CLI:
``python -m gateway`` with this repository first on ``PYTHONPATH``). Targets:

1. ``gateway --version`` against ``python -I -c pass``: at most 2x (issue 30; was 5x).
2. ``gateway call save_note`` (the examples' Python nimlet tool, in a workspace holding
   that extension) against ``_bare_call.py``: a bare Python script that spawns the same
   extension, sends ``initialize`` and the one ``tool`` request and reads the reply: at
   most 3x. The same call in the whole ``examples`` workspace, where the hooks of three
   other extensions (one of them a Pi extension in the Node sidecar) apply to it, is
   reported beside it.
   Beside them, the **stack floor** (``_stack_floor.py``): a Python importing what every
   one-shot call must use by the house's rules (pydantic at the wire boundary, anyio on
   asyncio, sqlite3, argparse) and doing the least of each. What 3x leaves the gateway's
   own code and the confinement of its child is printed: 3x the bare call, less the floor
   and less the extension's part of the bare call.
3. ``gateway serve --mcp`` until it has answered ``initialize`` and ``tools/list``, with
   8 installed packages of every ecosystem (2 Pi, 2 nanobot, 2 nimlet, OpenClaw, Nu)
   against none installed: at most 1.5x.

Each figure is wall time; the CPU time of the process and its children is shown beside it
(``getrusage``), which a loaded machine disturbs less. ``--baseline DIR`` also runs another
checkout's CLI (e.g. a ``git worktree`` of the commit before a change) in the same rounds,
on the same homes and workspaces, and prints this checkout's figures against it.

Private ``GATEWAY_HOME`` folders in a temporary directory; the packages are made or copied
from ``examples/packages`` and installed through the CLI. Before the rounds, each variant
runs once (byte code compiled, registration caches filled).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._generated import nanobot_package, nimlet_package, pi_package
from benchmarks._stdio_rpc import children_cpu, first_listing

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
EXAMPLES = REPO / "examples"
NOTES = EXAMPLES / ".nimlet" / "extensions" / "notes"
BARE_CALL = HERE / "_bare_call.py"
STACK_FLOOR = HERE / "_stack_floor.py"
GATEWAY = [sys.executable, "-m", "gateway"]


def example_package(root: Path, name: str) -> Path:
    return Path(shutil.copytree(EXAMPLES / "packages" / name, root / name))


def sources(root: Path) -> list[Path]:
    """Eight packages of every ecosystem."""
    return [
        pi_package(root, 0), pi_package(root, 1),
        nanobot_package(root, 2), nanobot_package(root, 3),
        nimlet_package(root, 4), nimlet_package(root, 5),
        example_package(root, "house-style"), example_package(root, "nu-changelog"),
    ]  # fmt: skip


def environment(home: Path, repo: Path = REPO) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed gateway has its byte code
    for name in ("GATEWAY_NODE", "GATEWAY_SIDECAR_DIR"):
        if name in os.environ:
            env[name] = os.environ[name]
    env.update(
        GATEWAY_HOME=str(home),
        HOME=str(home.parent),
        # This checkout's code, in the gateway and in the Python sidecar it starts.
        PYTHONPATH=os.pathsep.join(filter(None, [str(repo), os.environ.get("PYTHONPATH")])),
        GATEWAY_PASSTHROUGH_ENV="PYTHONPATH",
    )
    return env


def gateway(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*GATEWAY, *args], env=env, cwd=env["HOME"], capture_output=True, text=True,
        check=False, timeout=300,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"gateway {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done


def make_home(root: Path, packages: list[Path]) -> dict[str, str]:
    home = root / ".gateway"
    root.mkdir(parents=True)
    env = environment(home)
    for source in packages:
        report = json.loads(gateway(env, "install", str(source), "--json").stdout)
        package_id = report["id"]
        wanted = report.get("requested_permissions") or []
        if wanted:
            gateway(env, "permissions", package_id, *wanted)
        gateway(env, "trust", package_id)
        gateway(env, "enable", package_id)
    return env


def notes_workspace(root: Path) -> Path:
    shutil.copytree(NOTES, root / ".nimlet" / "extensions" / "notes")
    return python_shebangs(root)


def python_shebangs(root: Path) -> Path:
    """Python extensions run by this interpreter rather than ``/usr/bin/env python3``: where
    ``python3`` is a pyenv shim (a bash script), the shim alone costs more than the call."""
    for script in root.rglob("*.py"):
        text = script.read_text()
        if text.startswith("#!/usr/bin/env python3\n"):
            script.write_text(f"#!{sys.executable}\n" + text.split("\n", 1)[1])
    return root


Sample = tuple[float, float | None]
"""Wall seconds, and CPU seconds of the process and its children (None: not measured)."""


def timed(command: list[str], env: dict[str, str], cwd: Path | None = None) -> Sample:
    cpu, start = children_cpu(), time.perf_counter()
    cwd = cwd or Path(env["HOME"])  # python -m puts the current folder first on sys.path
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command} failed: {done.stdout!r} {done.stderr!r}")
    return elapsed, children_cpu() - cpu


def serve_listing(env: dict[str, str], workspace: Path) -> tuple[float, int]:
    """Seconds from spawning ``gateway serve --mcp`` to its ``tools/list`` answer (after
    ``initialize``), and how many tools it listed."""
    command = [*GATEWAY, "serve", "--mcp", "--workspace", str(workspace)]
    return first_listing(command, env, Path(env["HOME"]), "bench_cli")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="another checkout")
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        empty = make_home(root / "empty", [])
        full = make_home(root / "full", sources(root / "src"))
        notes = notes_workspace(root / "ws-notes")
        examples = python_shebangs(
            Path(shutil.copytree(EXAMPLES, root / "examples", ignore=_no_notes))
        )
        bare_ws = root / "ws-empty"
        bare_ws.mkdir()
        served: dict[str, int] = {}
        variants: dict[str, Callable[[], Sample]] = {
            "python -I -c pass": lambda: timed([sys.executable, "-I", "-c", "pass"], empty),
            "bare call": lambda: timed(
                [sys.executable, "-I", str(BARE_CALL), str(notes / ".nimlet/extensions/notes")],
                empty,
                cwd=notes,
            ),
            "stack floor": lambda: timed([sys.executable, str(STACK_FLOOR)], empty),
        }
        checkouts = {"": REPO, **({" [baseline]": args.baseline} if args.baseline else {})}
        for suffix, repo in checkouts.items():
            homes = {"empty": environment(Path(empty["GATEWAY_HOME"]), repo),
                     "full": environment(Path(full["GATEWAY_HOME"]), repo)}  # fmt: skip
            variants.update(gateway_variants(suffix, homes, notes, examples, bare_ws, served))
        for run in variants.values():  # warm-up: byte code, registration caches
            run()
        samples: dict[str, list[Sample]] = {name: [] for name in variants}
        for _ in range(rounds):
            for name, run in variants.items():
                samples[name].append(run())
    report(samples, served, rounds, bool(args.baseline))


def gateway_variants(
    suffix: str,
    homes: dict[str, dict[str, str]],
    notes: Path,
    examples: Path,
    bare_ws: Path,
    served: dict[str, int],
) -> dict[str, Callable[[], Sample]]:
    call = ["call", "save_note", '{"text": "hi"}', "--trust", "--workspace"]
    empty = homes["empty"]
    variants: dict[str, Callable[[], Sample]] = {
        f"gateway --version{suffix}": lambda: timed([*GATEWAY, "--version"], empty),
        f"gateway call{suffix}": lambda: timed([*GATEWAY, *call, str(notes)], empty),
        f"gateway call (examples){suffix}": lambda: timed([*GATEWAY, *call, str(examples)], empty),
    }
    for label, env in (("serve, no packages", empty), ("serve, 8 packages", homes["full"])):
        name = label + suffix

        def serve(env: dict[str, str] = env, name: str = name) -> Sample:
            elapsed, served[name] = serve_listing(env, bare_ws)
            return elapsed, None

        variants[name] = serve
    return variants


_SHARED = ("bare call", "python -I -c pass", "stack floor")
"""The variants every checkout is compared with: run once a round, not once per checkout."""


def _no_notes(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "NOTES.md"]


def report(
    samples: dict[str, list[Sample]], served: dict[str, int], rounds: int, baseline: bool
) -> None:
    wall = {name: median_ms([w for w, _ in values]) for name, values in samples.items()}
    cpu = {
        name: median_ms([c for _, c in values if c is not None])
        for name, values in samples.items()
        if values[0][1] is not None
    }
    print(f"== CLI start (medians of {rounds} interleaved rounds, fresh process each) ==")
    print(f"{'':36} {'wall':>9} {'CPU':>9}")
    for name, value in wall.items():
        used = f"{cpu[name]:6.1f} ms" if name in cpu else " " * 9
        extra = f"  ({served[name]} tools listed)" if name in served else ""
        print(f"{name:36} {value:6.1f} ms {used}{extra}")
    print()
    rows = (
        ("gateway --version / python -I -c pass", "gateway --version", "python -I -c pass", 2.0),
        ("gateway call / bare call", "gateway call", "bare call", 3.0),
        ("gateway call (examples) / bare call", "gateway call (examples)", "bare call", None),
        ("stack floor / bare call", "stack floor", "bare call", None),
        ("serve --mcp 8 packages / none", "serve, 8 packages", "serve, no packages", 1.5),
    )
    for suffix in ("", " [baseline]") if baseline else ("",):
        for label, top, bottom, target in rows:
            top += suffix
            bottom += "" if bottom in _SHARED else suffix
            if top.startswith("stack floor") and suffix:
                continue
            ratio = wall[top] / wall[bottom]
            on_cpu = (
                f" (CPU {cpu[top] / cpu[bottom]:5.2f}x)" if top in cpu and bottom in cpu else ""
            )
            verdict = (
                ""
                if target is None or suffix
                else f"  target <= {target:g}x: " + ("met" if ratio <= target else "MISSED")
            )
            print(f"{label + suffix:52} {ratio:5.2f}x{on_cpu}{verdict}")
    extension = wall["bare call"] - wall["python -I -c pass"]
    own = wall["gateway call"] - wall["stack floor"] - extension
    left = 3 * wall["bare call"] - wall["stack floor"] - extension
    print(
        f"\nthe gateway's own part of a call: {own:.1f} ms (gateway call - stack floor - the "
        f"extension's part of the bare call); 3x the bare call leaves it {left:.1f} ms"
    )
    if baseline:
        print()
        for name in wall:
            if name.endswith(" [baseline]"):
                mine = name.removesuffix(" [baseline]")
                print(f"{mine:36} {wall[mine] / wall[name]:5.2f}x the baseline's wall time")


if __name__ == "__main__":
    main()
