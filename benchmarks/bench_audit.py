"""``gateway audit``: static audit of one package, the batch of the nine public packages, and
what ``--load`` adds, each against a baseline measured in the same run.

    python benchmarks/bench_audit.py [--rounds N] [--no-load]

Figures (medians of N rounds, after one warm-up):

- static, one package: each fixture audited alone (fetch from its packed tarball, inspect,
  scan, assemble); target <= 1 s. Baseline: ``gateway inspect``'s work on the same
  unpacked folder (the adapter alone), so the ratio is what the audit adds to reading
  metadata.
- static batch: the nine public packages in one ``audit`` call; target <= 15 s.
- observed: the same batch with ``--load``; what it adds per package is compared with one
  cold start of the package's runtime (a real ``open_gateway`` start of the installed
  package, measured in the same run); target: no more than one cold start per runtime.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tarfile
import tempfile
import time
from pathlib import Path

import anyio

from gateway import GatewayConfig, open_gateway
from gateway.audit import audit
from gateway.packages import install, load_adapters
from gateway.store import StateStore

ROOT = Path(__file__).resolve().parents[1]
NPM = ROOT / "tests" / "fixtures" / "npm"
TARBALLS = sorted(NPM.glob("*.tgz"))


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _timed(run) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def bench_static(config: GatewayConfig, rounds: int, scratch: Path) -> None:
    print(f"static audit of one package (median of {rounds})")
    print(f"  {'package':42} {'inspect':>9} {'audit':>9} {'ratio':>7}")
    adapters = load_adapters()
    worst = 0.0
    for tarball in TARBALLS:
        unpacked = scratch / tarball.stem
        with tarfile.open(tarball) as archive:
            archive.extractall(unpacked, filter="data")
        root = unpacked / "package"
        adapters.inspect(root)
        audit([str(tarball)], config=config, adapters=adapters)  # warm-up
        base = _median([_timed(lambda r=root: adapters.inspect(r)) for _ in range(rounds)])
        full = _median(
            [
                _timed(lambda t=tarball: audit([str(t)], config=config, adapters=adapters))
                for _ in range(rounds)
            ]
        )
        worst = max(worst, full)
        print(f"  {tarball.stem:42} {base * 1000:7.1f}ms {full * 1000:7.1f}ms {full / base:6.1f}x")
    print(f"  slowest: {worst * 1000:.0f} ms (target <= 1000 ms)")


def bench_batch(config: GatewayConfig, rounds: int) -> float:
    sources = [str(t) for t in TARBALLS]
    samples = [_timed(lambda: audit(sources, config=config)) for _ in range(rounds)]
    batch = _median(samples)
    print(f"static batch of {len(sources)} packages: {batch:.2f} s (target <= 15 s)")
    return batch


async def _cold_start(home: Path, user: Path) -> float:
    """A first start: its own TMPDIR, so jiti compiles the package as the audit's throwaway
    load does (the audit never reuses a compile cache)."""
    fresh = user / "tmp"
    fresh.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(fresh)
    config = GatewayConfig(
        home=home, user_home=user, lazy_start=False, shutdown_grace=0.3, term_grace=0.5
    )
    workspace = user / "ws"
    workspace.mkdir(exist_ok=True)
    start = time.perf_counter()
    async with open_gateway(workspace, trust=True, config=config):
        elapsed = time.perf_counter() - start
    return elapsed


def bench_observed(config: GatewayConfig, static_batch: float, scratch: Path) -> None:
    sources = [str(t) for t in TARBALLS]
    start = time.perf_counter()
    report = audit(sources, load=True, confirmed_by="--yes", config=config)
    observed = time.perf_counter() - start
    loads = {p.id: p.observation.seconds for p in report.packages if p.observation}
    print(f"observed batch: {observed:.2f} s; the loads: {sum(loads.values()):.2f} s")
    print(f"  {'package':32} {'load':>8} {'cold start':>11} {'ratio':>7}")
    for tarball in TARBALLS:
        home = scratch / f"cold-{tarball.stem}" / ".gateway"
        package_id = install(
            home, str(tarball), kind="npm", inspector=load_adapters().inspect
        ).package.record.id
        with StateStore.open(home) as store:
            store.set_trusted(package_id, True)
            store.set_enabled(package_id, True)
        cold = anyio.run(_cold_start, home, home.parent)
        load = loads.get(package_id, 0.0)
        print(f"  {package_id:32} {load:7.2f}s {cold:10.2f}s {load / cold:6.2f}x")
    print(f"  what --load adds over the static batch: {observed - static_batch:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-load", action="store_true", help="skip the observed audit")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        config = GatewayConfig(home=scratch / "gateway", user_home=scratch)
        bench_static(config, args.rounds, scratch)
        batch = bench_batch(config, args.rounds)
        if not args.no_load:
            bench_observed(config, batch, scratch)


if __name__ == "__main__":
    main()
