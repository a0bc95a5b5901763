"""Isolated Pi packages: the memory and start of one package per process (issue 19).

    python benchmarks/bench_isolation.py [--rounds N] [--variants NAME,…] [--keep DIR]

Every package gets its own sidecar, launched exactly as the gateway launches an installed
package that shares its process with no other: the adapter's launch plan, the package's
sandbox (``spawn_confined`` with the policy the gateway builds), its environment. Against
baselines measured in the same run, the variants interleaved round by round, medians:

1. resident memory of the process serving one package, once it registered and settled:
   RSS, and USS (``Private_Clean + Private_Dirty``), from ``/proc/PID/smaps_rollup``,
   against a bare ``node -e "setInterval(()=>{},1e6)"`` kept alive, spawned the same way
   (target: RSS ≤ 1.3x). USS depends on which other processes map the same files (every
   Node on the machine shares the binary's pages), so it is compared within a round only;
2. cold start of one package, spawn → ``register`` received, against a bare ``node -e 0``
   spawned the same way, spawn → exit (target ≤ 2x); and the CPU time the process used to
   get there (every thread's ``schedstat``: steadier than wall time on a busy machine);
3. ten packages started at once, each in its own process, as the gateway starts them
   (spawn all, then wait for every ``register``), against one (target ≤ 2x), and the same
   for ten bare ``node -e 0``;
4. the round trip of a tool call on the raw pipe (p50 of sequential calls), so a variant
   that saves memory by slowing calls shows it.

The packages are real: the packed Pi fixtures of ``tests/fixtures/npm`` (installed through
the gateway's npm source and compiled at install, as ``gateway install`` does) and the
examples' Pi extension (``examples/.pi/extensions/redact``), plus small generated TypeScript
packages to make ten. A *variant* rewrites the planned launch (``VARIANTS``): ``before``
is the launch as it was before issue 19, ``now`` the launch as planned today, and the
others each step alone, so each step's gain is measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from adapters._node_flags import node_flags  # noqa: E402
from adapters._sidecars import compile_cache_dir, sidecar_dir  # noqa: E402
from benchmarks._stdio_rpc import stop  # noqa: E402
from gateway.model import LaunchSpec  # noqa: E402
from gateway.packages import install, load_adapters, prepare_install  # noqa: E402
from gateway.runtime import child_environment  # noqa: E402
from gateway.sandbox import policy_for_entry, spawn_confined  # noqa: E402
from gateway.store import StateStore  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "npm"
REAL = (
    "pi-aliases-1.0.7.tgz",
    "aliou-pi-processes-0.12.0.tgz",
    "pi-mermaid-0.3.0.tgz",
    "pi-prompt-template-model-0.12.2.tgz",
    "agentuity-pi-2.0.21.tgz",
)
EXAMPLE = REPO / "examples" / ".pi" / "extensions" / "redact" / "index.ts"
SMALL = """import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "echo_@N@", description: "echo", parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) { return { content: [{ type: "text", text: params.text }] }; },
  });
}
"""
SETTLE = 1.0
"""Seconds a process is left alone after ``register`` (the bare baseline: after its spawn)
before its memory is read: what it holds kept alive, not mid-start."""
CALLS = 200


@dataclass
class Package:
    id: str
    entry: object
    granted: list[str]
    spec: LaunchSpec


@dataclass(frozen=True)
class Variant:
    """A launch variant: flags taken out of the planned command, and environment added
    (a value of None takes the variable out)."""

    without: tuple[str, ...] = ()
    env: tuple[tuple[str, str | None], ...] = ()

    def command(self, planned: Sequence[str]) -> list[str]:
        return [part for part in planned if part not in self.without]


_TIER_UP = (node_flags(sidecar_dir())[-1],)  # the --import of lib/tier-up.mjs
_NO_CACHE = ("NODE_COMPILE_CACHE", None)
_NO_PI_BUNDLE = ("GATEWAY_SIDECAR_UNBUNDLED", "pi")
VARIANTS: dict[str, Variant] = {
    # Issue 19's starting point: no tier-up flags, pi's SDK as installed, no compile cache.
    "before": Variant(_TIER_UP, (_NO_PI_BUNDLE, _NO_CACHE)),
    "+ tier-up flags": Variant((), (_NO_PI_BUNDLE, _NO_CACHE)),
    "+ Pi SDK bundle": Variant((), (_NO_CACHE,)),
    "+ compile cache": Variant(),  # = the launch as the adapter plans it today
}
"""Launch variants, by name, each adding one step to the one before."""


@dataclass
class Lab:
    """An installed gateway home and the launch of each package in it."""

    root: Path
    home: Path
    workspace: Path
    packages: list[Package] = field(default_factory=list)

    def spawn(
        self, package: Package, command: Sequence[str], env: Sequence[tuple[str, str | None]] = ()
    ) -> subprocess.Popen[bytes]:
        sandbox = policy_for_entry(
            package.entry, package.granted, home=self.home, workspace=self.workspace,
            runtime=package.spec.reads,
        )  # fmt: skip
        policy = sandbox.policy.allowing(write=package.spec.writes)
        environment = {**child_environment(), **package.spec.env, **sandbox.environment}
        for name, value in env:
            if value is None:
                environment.pop(name, None)
            else:
                environment[name] = value
        return spawn_confined(
            list(command), policy=policy, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, cwd=self.workspace, env=environment,
        )  # fmt: skip


def _small_package(root: Path, name: str, source: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text(source)
    manifest = {"name": name, "version": "1.0.0", "pi": {"extensions": ["./index.ts"]}}
    (folder / "package.json").write_text(json.dumps(manifest))
    return folder


def make_lab(root: Path, count: int = 15) -> Lab:
    """Install the real packages, the example and small ones up to ``count``; every gate
    passed, each compiled at install (``gateway install``)."""
    home = root / "home" / ".gateway"
    workspace = root / "ws"
    workspace.mkdir(parents=True, exist_ok=True)
    adapters = load_adapters()
    prepare = functools.partial(prepare_install, adapters, home)
    sources: list[tuple[str, str]] = [(str(FIXTURES / name), "npm") for name in REAL]
    sources.append(
        (str(_small_package(root / "src", "redact-example", EXAMPLE.read_text())), "local")
    )
    index = 0
    while len(sources) < count:
        source = SMALL.replace("@N@", str(index))
        sources.append((str(_small_package(root / "src", f"small-{index}", source)), "local"))
        index += 1
    lab = Lab(root, home, workspace)
    for source, kind in sources[:count]:
        report = install(home, source, kind=kind, inspector=adapters.inspect, prepare=prepare)
        package_id = report.package.record.id
        with StateStore.open(home) as store:
            store.set_trusted(package_id, True)
            store.set_enabled(package_id, True)
            status = store.get_package(package_id)
        assert status is not None
        entry = adapters.inspect(status.record.path)
        spec = adapters.adapter(entry.ecosystem).plan_launch(entry, home)
        assert isinstance(spec, LaunchSpec), spec
        lab.packages.append(Package(package_id, entry, sorted(status.granted), spec))
    return lab


def _initialize(process: subprocess.Popen[bytes], workspace: Path) -> None:
    assert process.stdin
    init = {"type": "initialize", "version": 1, "session_id": "b", "workspace": str(workspace)}
    process.stdin.write((json.dumps(init) + "\n").encode())
    process.stdin.flush()


def _registered(process: subprocess.Popen[bytes]) -> dict:
    assert process.stdout
    line = process.stdout.readline()
    assert line.startswith(b'{"type":"register"'), line[:300]
    return json.loads(line)


def memory(pid: int) -> dict[str, float]:
    """MB from ``/proc/PID/smaps_rollup``: Rss, and Uss (private clean + dirty)."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        fields[name.rstrip(":")] = int(value)
    uss = fields["Private_Clean"] + fields["Private_Dirty"]
    return {"rss": fields["Rss"] / 1024, "uss": uss / 1024}


def cpu_seconds(pid: int) -> float:
    """CPU time every thread of ``pid`` has used so far (nanosecond ``schedstat``)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):  # a thread that ended
            total += int((task / "schedstat").read_text().split()[0])
    return total / 1e9


def one_package(lab: Lab, package: Package, variant: Variant, calls: bool) -> dict[str, float]:
    """Start, CPU to register, memory kept alive, and (``calls``) the call round trip."""
    start = time.perf_counter()
    process = lab.spawn(package, variant.command(package.spec.command), variant.env)
    _initialize(process, lab.workspace)
    registered = _registered(process)
    found = {"start": time.perf_counter() - start, "cpu": cpu_seconds(process.pid)}
    time.sleep(SETTLE)
    found.update(memory(process.pid))
    tools = [t["name"] for t in registered.get("tools", []) if t["name"].startswith("echo")]
    if calls and tools:
        found["call"] = _round_trip(process, tools[0])
    stop(process, 10)
    return found


def _round_trip(process: subprocess.Popen[bytes], tool: str) -> float:
    assert process.stdin and process.stdout
    samples = []
    for index in range(CALLS):
        request = {"type": "tool", "id": f"c{index}", "name": tool, "arguments": {"text": "hi"}}
        line = (json.dumps(request) + "\n").encode()
        start = time.perf_counter()
        process.stdin.write(line)
        process.stdin.flush()
        reply = process.stdout.readline()
        samples.append(time.perf_counter() - start)
        assert b'"response"' in reply, reply
    return statistics.median(samples[CALLS // 4 :])  # after a warm-up quarter


def bare(lab: Lab, node: str) -> dict[str, float]:
    start = time.perf_counter()
    process = lab.spawn(lab.packages[0], [node, "-e", "0"])
    stop(process, 10)
    found = {"start": time.perf_counter() - start}
    process = lab.spawn(lab.packages[0], [node, "-e", "setInterval(()=>{},1e6)"])
    time.sleep(SETTLE)
    found.update(memory(process.pid))
    process.kill()
    process.wait()
    return found


def many(lab: Lab, packages: Sequence[Package], variant: Variant) -> float:
    start = time.perf_counter()
    processes = [lab.spawn(p, variant.command(p.spec.command), variant.env) for p in packages]
    for process in processes:
        _initialize(process, lab.workspace)
    for process in processes:
        _registered(process)
    elapsed = time.perf_counter() - start
    for process in processes:
        stop(process, 10)
    return elapsed


def many_bare(lab: Lab, node: str, count: int) -> float:
    start = time.perf_counter()
    processes = [lab.spawn(lab.packages[0], [node, "-e", "0"]) for _ in range(count)]
    for process in processes:
        stop(process, 10)
    return time.perf_counter() - start


def run(lab: Lab, rounds: int, variants: Sequence[str]) -> dict[str, list[float]]:
    node = lab.packages[0].spec.command[3]
    small = [p for p in lab.packages if p.id.startswith(("small-", "redact"))][:10]
    caller = next(p for p in small if p.id.startswith("small-"))  # has an echo tool
    singles = [p for p in lab.packages if not p.id.startswith("small-") or p is caller]
    mixed = lab.packages[:10]  # the five real ones, the example, four small ones
    samples: dict[str, list[float]] = {}

    def add(prefix: str, found: dict[str, float]) -> None:
        for key, value in found.items():
            samples.setdefault(f"{prefix}.{key}", []).append(value)

    for index in range(rounds):
        add("bare", bare(lab, node))
        add("bare", {"ten": many_bare(lab, node, 10)})
        for name in variants:
            variant = VARIANTS[name]
            # Every package for start and memory, in turn; one small package with calls.
            for package in singles:
                found = one_package(lab, package, variant, calls=package is caller)
                add(f"{name}.{package.id}", found)
            add(name, {"ten small": many(lab, small, variant)})
            add(name, {"ten mixed": many(lab, mixed, variant)})
        print(f"round {index + 1}/{rounds} done", file=sys.stderr)
    return samples


def report(samples: dict[str, list[float]], lab: Lab, variants: Sequence[str]) -> None:
    med = {name: statistics.median(values) for name, values in samples.items()}
    ms = 1000
    floor, alive = med["bare.start"], med["bare.rss"]
    print(f"bare node: node -e 0 {floor * ms:.1f} ms; kept alive RSS {alive:.1f} MB, "
          f"USS {med['bare.uss']:.1f} MB; ten node -e 0 at once {med['bare.ten'] * ms:.0f} ms "
          f"= {med['bare.ten'] / floor:.2f}x one")  # fmt: skip
    small = next(p.id for p in lab.packages if p.id.startswith("small-"))
    for name in variants:
        print(f"\n[{name}]")
        print(f"  {'package':28s} {'start ms':>9s} {'x bare':>7s} {'cpu ms':>7s} "
              f"{'RSS MB':>7s} {'x bare':>7s} {'USS MB':>7s}")  # fmt: skip
        starts = {}
        for package in lab.packages:
            key = f"{name}.{package.id}"
            if key + ".start" not in med:
                continue
            start, rss = med[key + ".start"], med[key + ".rss"]
            starts[package.id] = start
            print(f"  {package.id:28s} {start * ms:9.1f} {start / floor:7.2f} "
                  f"{med[key + '.cpu'] * ms:7.1f} {rss:7.1f} {rss / alive:7.2f} "
                  f"{med[key + '.uss']:7.1f}")  # fmt: skip
        one, slowest = starts[small], max(starts.values())
        ten, mixed = med[f"{name}.ten small"], med[f"{name}.ten mixed"]
        print(f"  ten small packages at once: {ten * ms:.0f} ms = {ten / one:.2f}x one")
        print(f"  five real, the example, four small at once: {mixed * ms:.0f} ms = "
              f"{mixed / slowest:.2f}x the slowest alone")  # fmt: skip
        if f"{name}.{small}.call" in med:
            call = med[f"{name}.{small}.call"] * ms
            print(f"  tool call round trip p50 (raw pipe): {call:.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--keep", type=Path, help="make the lab in this folder and keep it")
    args = parser.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; known: {sorted(VARIANTS)}")
    if compile_cache_dir() is None or not (sidecar_dir() / "node_modules/.gateway/pi").is_dir():
        print("note: no compile cache or Pi SDK bundle: run `gateway setup` first", file=sys.stderr)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-isolation-"))
    try:
        lab = make_lab(folder)
        samples = run(lab, args.rounds, variants)
        report(samples, lab, variants)
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
