"""Differential fidelity: each package of a corpus loaded (a) by its ecosystem's own host
outside the gateway and (b) by the gateway as its user would, and what each registered
compared — tools, commands, flags, event subscriptions, skills, prompt templates.

    python benchmarks/fidelity/run.py [--corpus benchmarks/fidelity/corpus.toml] [--quick]
        [--json out.json] [--only pi[,openclaw…]] [--package NAME …] [--jobs 2]
        [--timeout 60] [--cache DIR] [--git-mirrors DIR] [--record] [--gateway-lists]

Sources are fetched on demand into ``--cache`` (default ``~/.cache/extension-gateway-
fidelity``): npm tarballs checked against the corpus's pinned integrity, git trees at their
pinned commit from a local mirror or a clone. ``--quick`` takes only the corpus's quick
entries, from the packed fixtures in tests/fixtures/npm and the examples shipped in the pinned
``@earendil-works/pi-coding-agent`` (no network), and ``--record`` writes their verdicts to
``quick_expected.json`` (what ``tests/fidelity/test_quick.py`` checks). See README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
REPO = HERE.parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(1, str(REPO))

import _agent_plugins  # noqa: E402
from _claude import claude_host  # noqa: E402
from _compare import HOST_VIEWS  # noqa: E402
from _context import Context, HostSetupFailed  # noqa: E402
from _corpus import Package, SourceUnavailable, default_cache, load_corpus, materialize  # noqa: E402
from _gateway_side import run_gateway  # noqa: E402
from _judge import judge  # noqa: E402
from _own_hosts import NoReference, host_job, host_root, run_host  # noqa: E402
from _report import commit, markdown, rates, report, signature  # noqa: E402

HOST_VIEWS["claude"] = claude_host
HOST_VIEWS["agent-plugins"] = _agent_plugins.host_view
EXPECTED = HERE / "quick_expected.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=str(HERE / "corpus.toml"))
    parser.add_argument("--quick", action="store_true", help="the quick subset, offline")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--only", help="ecosystems, comma-separated")
    parser.add_argument("--package", action="append", default=[], help="only this one (repeat)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per load")
    parser.add_argument("--install-timeout", type=float, default=300.0)
    parser.add_argument("--cache", default=str(default_cache()))
    parser.add_argument(
        "--git-mirrors", default=os.environ.get("FIDELITY_GIT_MIRRORS", "/work/.mirror")
    )
    parser.add_argument(
        "--gateway-code",
        default=str(REPO),
        metavar="DIR",
        help="the checkout whose gateway is measured ('' : the installed one)",
    )
    parser.add_argument("--record", action="store_true", help="write quick_expected.json")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument(
        "--gateway-lists",
        action="store_true",
        help="keep each package's `gateway list --json` in the JSON (gateway_list)",
    )
    parser.add_argument("--markdown", metavar="FILE", help="write the results as Markdown")
    parser.add_argument("--from-json", metavar="FILE", help="render an earlier run's JSON")
    args = parser.parse_args(argv)
    if args.from_json:
        data = json.loads(Path(args.from_json).read_text())
        report(data["packages"], data["seconds"], sys.stdout)
        if args.markdown:
            Path(args.markdown).write_text(markdown(data))
        return 0
    started = time.monotonic()
    packages = load_corpus(Path(args.corpus))
    if args.quick:
        packages = [p for p in packages if p.quick]
    if args.only:
        wanted = set(args.only.split(","))
        packages = [p for p in packages if p.ecosystem in wanted]
    if args.package:
        packages = [p for p in packages if p.name in args.package]
    ctx = Context(args)
    try:
        records = run_all(packages, ctx)
    finally:
        if not args.keep:
            shutil.rmtree(ctx.scratch, ignore_errors=True)
    seconds = time.monotonic() - started
    for record in records:
        record["signature"] = signature(record)
    report(records, seconds, sys.stdout)
    data = {
        "date": time.strftime("%Y-%m-%d"),
        "seconds": round(seconds, 1),
        "gateway_commit": commit(args.gateway_code or str(REPO)),
        "quick": args.quick,
        "corpus": str(args.corpus),
        "summary": rates(records),
        "packages": records,
    }
    if args.markdown:
        Path(args.markdown).write_text(markdown(data))
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=1))
    if args.record:
        EXPECTED.write_text(
            json.dumps({r["name"]: r["signature"] for r in records}, indent=1, sort_keys=True)
            + "\n"
        )
    return 0


def run_all(packages: list[Package], ctx: Context) -> list[dict[str, Any]]:
    sources: dict[str, Path] = {}
    hosts: dict[str, dict[str, Any]] = {}
    for pkg in packages:  # sequential: the network is used politely, one fetch at a time
        try:
            sources[pkg.key] = materialize(
                pkg, ctx.cache, ctx.args.quick, ctx.mirrors, ctx.npm, ctx.npm_env()
            )
        except (SourceUnavailable, subprocess.TimeoutExpired) as error:
            hosts[pkg.key] = {"unavailable": f"source: {error}"}
    ready = [p for p in packages if p.key in sources]
    gateways: dict[str, dict[str, Any]] = {}

    def host_side(group: list[Package]) -> None:
        jobs = []
        for pkg in group:
            try:
                jobs.append(host_job(pkg, host_root(pkg, sources[pkg.key], ctx), ctx))
            except (HostSetupFailed, SourceUnavailable, subprocess.TimeoutExpired) as error:
                hosts[pkg.key] = {"setup_failed": str(error)}
            except NoReference as error:
                hosts[pkg.key] = {"unavailable": f"no reference OpenClaw: {error}"}
        if jobs:
            hosts.update(run_host(group[0].ecosystem, jobs, ctx))

    def gateway_side(group: list[Package]) -> None:
        gateways.update(run_gateway(group, sources, ctx))

    groups: list[list[Package]] = []
    for ecosystem in ("pi", "openclaw", "nanobot", "nimlet", "claude", "agent-plugins"):
        members = [p for p in ready if p.ecosystem == ecosystem]
        if ctx.args.quick:  # one process per ecosystem: the host starts once
            groups += [members] if members else []
        else:  # one process per package: a crash or a hang costs only that package
            groups += [[p] for p in members]
    workers = max(1, ctx.args.jobs)
    if ctx.args.quick:  # the gateway side in `workers` processes, each a share of the packages
        gateway_groups = [ready[n::workers] for n in range(workers) if ready[n::workers]]
    else:
        gateway_groups = [[p] for p in ready]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(host_side, g) for g in groups]
        futures += [pool.submit(gateway_side, g) for g in gateway_groups]
        for future in futures:
            future.result()
    records = [
        judge(p, hosts.get(p.key, {"crashed": "not run"}), gateways.get(p.key, {}))
        for p in packages
    ]
    if ctx.args.gateway_lists:  # what the gateway side listed, as it listed it
        for pkg, record in zip(packages, records, strict=True):
            record["gateway_list"] = gateways.get(pkg.key, {}).get("list")
    return records


if __name__ == "__main__":
    sys.exit(main())
