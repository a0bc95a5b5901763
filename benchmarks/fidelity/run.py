"""Differential fidelity: each package of a corpus loaded (a) by its ecosystem's own host
outside the gateway and (b) by the gateway as its user would, and what each registered
compared — tools, commands, flags, event subscriptions, skills, prompt templates.

    python benchmarks/fidelity/run.py [--corpus benchmarks/fidelity/corpus.toml] [--quick]
        [--json out.json] [--only pi[,openclaw…]] [--package NAME …] [--jobs 2]
        [--timeout 60] [--cache DIR] [--git-mirrors DIR] [--record]

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
import tempfile
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
from _claude import claude_argv, claude_differences, claude_host  # noqa: E402
from _compare import HOST_VIEWS, Difference, differences, gateway_view  # noqa: E402
from _corpus import (  # noqa: E402
    SIDECAR_MODULES,
    Package,
    SourceUnavailable,
    default_cache,
    extract,
    load_corpus,
    materialize,
)
from _report import commit, markdown, rates, report, signature, summary  # noqa: E402

HOST_VIEWS["claude"] = claude_host
HOST_VIEWS["agent-plugins"] = _agent_plugins.host_view
EXPECTED = HERE / "quick_expected.json"
NANOBOT_UPSTREAM = ("HKUDS/nanobot", "a521cf31d952c9403581bdbb6d91e77f1d5f8b85")
NANOBOT_FILES = (
    "nanobot/extensions/codec.py",
    "nanobot/extensions/manifest.py",
    "nanobot/extensions/versioning.py",
    "nanobot/agent/tools/base.py",
    "nanobot/agent/hook.py",
)
# What upstream's hook.py imports beyond these files, used there only in annotations and in
# an error log line: stand-ins, so that the rest of nanobot (tiktoken, providers) is not needed.
NANOBOT_STAND_INS = {
    "loguru/__init__.py": "class _Logger:\n    def __getattr__(self, name):\n"
    "        return lambda *a, **k: None\n\n\nlogger = _Logger()\n",
    "nanobot/providers/__init__.py": "",
    "nanobot/providers/base.py": "class LLMResponse:\n    pass\n\n\n"
    "class ToolCallRequest:\n    pass\n",
}

# --------------------------------------------------------------------------- set-up


class Context:
    def __init__(self, args: argparse.Namespace) -> None:
        from gateway.runtime import find_node

        self.args = args
        self.cache = Path(args.cache).resolve()
        self.cache.mkdir(parents=True, exist_ok=True)
        self.scratch = Path(tempfile.mkdtemp(prefix="gateway-fidelity-"))
        node = find_node()
        if node is None:
            raise SystemExit("fidelity: no Node >= 22.19 (run `gateway setup`)")
        self.node = node
        npm = shutil.which("npm")
        cli = (
            Path(node).resolve().parent.parent
            / "lib"
            / "node_modules"
            / "npm"
            / "bin"
            / "npm-cli.js"
        )
        self.npm = [npm] if npm else [node, str(cli)]
        self.env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_HOME",)}
        # Node first; then this Python's folder: an Agent Plugin's `python3` server is run
        # by the Python that has the mcp SDK, on both sides.
        path = os.pathsep.join([str(Path(node).parent), str(Path(sys.executable).parent)])
        self.env["PATH"] = f"{path}{os.pathsep}{self.env.get('PATH', '')}"
        self.env.setdefault("npm_config_update_notifier", "false")
        self.mirrors = Path(args.git_mirrors)

    def npm_env(self) -> dict[str, str]:
        return {**self.env, "npm_config_fund": "false", "npm_config_audit": "false"}


def nanobot_upstream(ctx: Context) -> Path | None:
    """Upstream's manifest reader (and Tool base) at the extension branch's commit, copied
    from a mirror of the repository into the cache."""
    from _corpus import git_mirror

    repo, commit = NANOBOT_UPSTREAM
    target = ctx.cache / "nanobot-upstream" / commit[:12]
    if (target / ".done").exists():
        return target
    mirror = git_mirror(repo, ctx.mirrors)
    if mirror is None:
        return None
    for relative in NANOBOT_FILES:
        blob = subprocess.run(
            ["git", f"--git-dir={mirror}", "show", f"{commit}:{relative}"],
            capture_output=True,
            check=False,
        )
        if blob.returncode != 0:
            return None
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob.stdout)
    for package in ("nanobot", "nanobot/extensions", "nanobot/agent", "nanobot/agent/tools"):
        (target / package / "__init__.py").touch()
    for relative, text in NANOBOT_STAND_INS.items():
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_text(text)
    (target / ".done").write_text(commit)
    return target


# --------------------------------------------------------------------------- own hosts


def host_root(pkg: Package, source: Path, ctx: Context) -> Path:
    """Where the ecosystem's own host loads the package from: an npm package installed as
    that ecosystem installs it (Pi: ``npm install SPEC --prefix`` with scripts; OpenClaw:
    ``--omit=peer --ignore-scripts``), a packed fixture unpacked, anything else as it is."""
    if pkg.source != "npm":
        return source
    if source.is_relative_to(REPO):  # a packed fixture: dependencies already inside
        return extract(source, ctx.cache / "fixtures" / pkg.key)
    prefix = ctx.cache / "host" / pkg.key
    name = pkg.spec.rsplit("@", 1)[0]
    root = prefix / "node_modules" / name
    if (prefix / ".done").exists():
        return root
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    (prefix / "package.json").write_text("{}\n")
    flags = ["--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund", "--no-package-lock"]
    if pkg.ecosystem == "openclaw":
        flags += ["--omit=peer", "--ignore-scripts"]
    result = subprocess.run(
        [*ctx.npm, "install", str(source), "--prefix", str(prefix), *flags],
        capture_output=True,
        text=True,
        timeout=ctx.args.install_timeout,
        env=ctx.npm_env(),
        check=False,
        cwd=prefix,
    )
    (prefix / "npm.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0 or not root.exists():
        raise HostSetupFailed(f"npm install {pkg.spec}: {result.stderr.strip()[-400:]}")
    (prefix / ".done").write_text("ok")
    return root


class HostSetupFailed(Exception):
    pass


PINNED_OPENCLAW = "2026.9.6"
"""The sidecar's own ``openclaw`` (sidecars/package.json): the reference for plugins that
declare OpenClaw 2026.8 or later, or nothing."""
OLDER_OPENCLAW = "2026.7.35"
"""The reference for plugins that declare an OpenClaw before 2026.8 (the gateway loads them
as those hosts do: ``adapters/openclaw/_lines.py`` ``loader_for``): the last release of the
lines whose loader falls back to jiti (and still exports the root ``openclaw/plugin-sdk``)."""


def openclaw_reference(root: Path) -> str:
    """Which OpenClaw loads the plugin as the one it declares: the version to measure
    against, read from its metadata as the gateway reads it."""
    from adapters.openclaw._inspect import inspect_plugin
    from adapters.openclaw._lines import loader_for

    loader = loader_for(inspect_plugin(root).metadata)
    return PINNED_OPENCLAW if loader == "native" else OLDER_OPENCLAW


def openclaw_dir(version: str, ctx: Context) -> Path:
    """The ``openclaw`` package folder of ``version``: the sidecar's own for the pinned one,
    else installed once into the cache from the npm registry (no scripts, no peers)."""
    if version == PINNED_OPENCLAW:
        return SIDECAR_MODULES / "openclaw"
    prefix = ctx.cache / f"openclaw-{version}"
    folder = prefix / "node_modules" / "openclaw"
    if (prefix / ".done").exists():
        return folder
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    (prefix / "package.json").write_text("{}\n")
    flags = ["--omit=dev", "--omit=peer", "--ignore-scripts", "--legacy-peer-deps"]
    result = subprocess.run(
        [*ctx.npm, "install", f"openclaw@{version}", *flags, "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        timeout=max(ctx.args.install_timeout, 600),
        env=ctx.npm_env(),
        check=False,
        cwd=prefix,
    )
    (prefix / "npm.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0 or not folder.exists():
        raise HostSetupFailed(f"npm install openclaw@{version}: {result.stderr.strip()[-400:]}")
    (prefix / ".done").write_text("ok")
    return folder


def run_host(ecosystem: str, jobs: list[dict[str, Any]], ctx: Context) -> dict[str, dict[str, Any]]:
    """One process of the ecosystem's own host for ``jobs``; results by key. OpenClaw
    plugins: one process per reference version (``openclaw_reference``)."""
    versions = sorted({j.get("openclaw", PINNED_OPENCLAW) for j in jobs})
    if ecosystem == "openclaw" and len(versions) > 1:
        found: dict[str, dict[str, Any]] = {}
        for version in versions:
            group = [j for j in jobs if j.get("openclaw", PINNED_OPENCLAW) == version]
            found.update(run_host(ecosystem, group, ctx))
        return found
    work = ctx.scratch / f"host-{ecosystem}-{jobs[0]['key']}"
    work.mkdir(parents=True)
    job_file, out_file = work / "jobs.json", work / "out.json"
    job_file.write_text(json.dumps(jobs))
    env = {
        **ctx.env,
        "HOME": str(work / "home"),
        "DO_NOT_TRACK": "1",
        "MEM0_TELEMETRY": "false",
        "OPENCLAW_STATE_DIR": str(work / "openclaw-state"),
        "PI_CODING_AGENT_DIR": str(work / "pi-agent"),
        # jiti's compile cache survives runs (as a user's /tmp would)
        "TMPDIR": str(ctx.cache / "tmp"),
    }
    (work / "home").mkdir()
    (ctx.cache / "tmp").mkdir(exist_ok=True)
    if ecosystem == "pi":
        argv = [
            ctx.node,
            str(HERE / "pi_host.mjs"),
            "--pi",
            str(SIDECAR_MODULES / "@earendil-works" / "pi-coding-agent"),
            "--out",
            str(out_file),
        ]
    elif ecosystem == "openclaw":
        version = jobs[0].get("openclaw", PINNED_OPENCLAW)
        try:
            reference = openclaw_dir(version, ctx)
        except (HostSetupFailed, subprocess.TimeoutExpired) as error:
            return {j["key"]: {"unavailable": f"OpenClaw {version}: {error}"} for j in jobs}
        argv = [
            ctx.node,
            str(HERE / "openclaw_host.mjs"),
            "--openclaw",
            str(reference),
            "--out",
            str(out_file),
        ]
    elif ecosystem == "claude":
        argv = claude_argv(ctx.node, SIDECAR_MODULES / "openclaw", out_file)
    elif ecosystem == "nanobot":
        upstream = nanobot_upstream(ctx)
        if upstream is None:
            return {
                j["key"]: {
                    "unavailable": "no copy of nanobot upstream's extension branch "
                    f"({NANOBOT_UPSTREAM[0]}@{NANOBOT_UPSTREAM[1][:9]}) in "
                    f"{ctx.mirrors}"
                }
                for j in jobs
            }
        env["PYTHONPATH"] = str(upstream)
        argv = [sys.executable, "-P", str(HERE / "_nanobot_host.py"), str(out_file)]
    elif ecosystem == "agent-plugins":
        python = _agent_plugins.reference_python(ctx.cache)
        if isinstance(python, str):
            return {j["key"]: {"unavailable": python} for j in jobs}
        argv = [str(python), "-P", str(HERE / "_agent_plugins.py"), str(out_file)]
    else:
        argv = [sys.executable, str(HERE / "_nimlet_host.py"), str(out_file)]
    argv.append(str(job_file))
    limit = ctx.args.timeout * len(jobs) + 30
    try:
        proc = subprocess.run(
            argv, capture_output=True, timeout=limit, env=env, check=False, cwd=work
        )
        tail = proc.stderr.decode(errors="replace")[-800:]
    except subprocess.TimeoutExpired:
        tail = f"timed out after {limit}s"
    results = json.loads(out_file.read_text()) if out_file.exists() else []
    found = {r["key"]: r for r in results}
    for job in jobs:
        found.setdefault(job["key"], {"crashed": f"the {ecosystem} host ended early: {tail}"})
    return found


def host_job(pkg: Package, root: Path, ctx: Context) -> dict[str, Any]:
    base = ctx.scratch / pkg.key / "host"
    job: dict[str, Any] = {
        "key": pkg.key,
        "path": str(root),
        "cwd": str(base / "ws"),
        "agentDir": str(base / "agent"),
        "timeout": ctx.args.timeout,
    }
    (base / "ws").mkdir(parents=True, exist_ok=True)
    if pkg.ecosystem == "pi" and not pkg.installs:
        job["discover"] = True
    if pkg.ecosystem == "openclaw":
        job["config"] = pkg.config
        # the offline subset has only the pinned OpenClaw (the older one is downloaded)
        job["openclaw"] = PINNED_OPENCLAW if ctx.args.quick else openclaw_reference(root)
    if pkg.ecosystem == "nimlet":
        job["kind"] = pkg.kind
    return job


# --------------------------------------------------------------------------- the gateway


def gateway_job(pkg: Package, source: Path, ctx: Context) -> dict[str, Any]:
    """The private folders of the package's gateway run, the package placed or to install."""
    base = ctx.scratch / pkg.key / "gateway"
    home, gateway_home, workspace = base / "home", base / "gateway-home", base / "ws"
    for folder in (home, gateway_home, workspace):
        folder.mkdir(parents=True)
    job: dict[str, Any] = {
        "key": pkg.key,
        "workspace": str(workspace),
        "config": pkg.config,
        "out": str(base / "out.json"),
        "env": {"HOME": str(home), "GATEWAY_HOME": str(gateway_home)},
    }
    if pkg.installs:
        job["install"] = str(source)
        job["kind"] = "npm" if pkg.source == "npm" else "local"
    else:
        place = {
            ("pi", ""): home / ".pi" / "agent" / "extensions",
            ("nimlet", "extension"): home / ".nimlet" / "extensions",
            ("nimlet", "tool"): home / ".nimlet" / "tools",
            ("nimlet", "skill"): home / ".nimlet" / "skills",
            ("nimlet", "prompt"): home / ".nimlet" / "prompts",
        }[(pkg.ecosystem, pkg.kind if pkg.ecosystem == "nimlet" else "")]
        place.mkdir(parents=True)
        if source.is_dir():
            shutil.copytree(source, place / source.name, symlinks=True)
        else:
            shutil.copy2(source, place / source.name)
    return job


def run_gateway(group: list[Package], sources: dict[str, Path], ctx: Context) -> dict[str, Any]:
    """One driver process for ``group`` (the gateway CLI, one package after the other)."""
    jobs = [gateway_job(p, sources[p.key], ctx) for p in group]
    job_file = ctx.scratch / f"gateway-{group[0].key}.json"
    job_file.write_text(json.dumps(jobs))
    env = dict(ctx.env)
    if ctx.args.gateway_code:
        env["PYTHONPATH"] = ctx.args.gateway_code
    limit = sum(ctx.args.timeout + (ctx.args.install_timeout if p.installs else 0) for p in group)
    tail = ""
    try:
        proc = subprocess.run(
            [sys.executable, str(HERE / "_gateway_driver.py"), str(job_file)],
            capture_output=True,
            timeout=limit,
            env=env,
            check=False,
            cwd=ctx.scratch,
        )
        tail = proc.stderr.decode(errors="replace")[-800:]
    except subprocess.TimeoutExpired:
        tail = f"the gateway took longer than {limit:g}s (timed out)"
    found = {}
    for job in jobs:
        out = Path(job["out"])
        found[job["key"]] = (
            json.loads(out.read_text())
            if out.exists()
            else {"failed": f"the gateway driver ended early: {tail}"}
        )
    return found


# --------------------------------------------------------------------------- one package


def judge(pkg: Package, host: dict[str, Any], gw: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "name": pkg.name,
        "ecosystem": pkg.ecosystem,
        "source": pkg.source,
        **({"reference": host["openclaw"]} if "openclaw" in host else {}),
        "seconds": {"host": host.get("seconds"), "gateway": gw.get("seconds")},
    }
    setup = str(host.get("setup_failed", ""))
    if any(code in setup for code in ("ETARGET", "E404", "notarget", "error 404")):
        # its own installer fails on what the registry says: the package cannot be installed
        record.update(
            verdict="broken upstream",
            host="fails: " + setup[:120],
            gateway="n/a",
            why=setup,
            differences=[],
        )
        return record
    if "unavailable" in host or "crashed" in host or "setup_failed" in host:
        why = host.get("unavailable") or host.get("crashed") or host.get("setup_failed")
        record.update(
            verdict="error", why=f"own host: {why}", host="n/a", gateway="n/a", differences=[]
        )
        return record
    host_view, loaded = HOST_VIEWS[pkg.ecosystem](host)
    record["host_view"] = host_view.to_dict()
    if "failed" in gw and "list" not in gw:
        gw_view = None
        record["gateway_view"] = {"errors": [gw["failed"]]}
    else:
        gw_view = gateway_view(gw.get("list", {}))
        record["gateway_view"] = gw_view.to_dict()
    record["host"] = summary(host_view) if loaded else "fails: " + "; ".join(host_view.errors)[:120]
    record["gateway"] = (
        summary(gw_view)
        if gw_view and not gw_view.errors
        else ("fails: " + ("; ".join(gw_view.errors) if gw_view else gw["failed"])[:120])
    )
    if not loaded:
        record.update(verdict="broken upstream", differences=[])
        return record
    if gw_view is None:
        failed = gw["failed"]
        from _compare import _load_cause

        cause = (
            "gateway-timeout"
            if "timed out" in failed
            else (
                "gateway-install-failed" if failed.startswith("install") else _load_cause([failed])
            )
        )
        if failed.startswith("install") and cause == "gateway-install-failed":
            from _compare import _NATIVE

            if _NATIVE.search(failed):
                cause = "native-deps"
        diffs = [Difference("load", "load", [], cause, failed[:400])]
    else:
        if pkg.ecosystem == "claude":
            diffs = claude_differences(host_view, gw_view, host)
        else:
            diffs = differences(pkg.ecosystem, host_view, gw_view, host)
    record["differences"] = [d.to_dict() for d in diffs]
    record["verdict"] = "identical" if not diffs else "differs"
    return record


# --------------------------------------------------------------------------- the run


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
    return [
        judge(p, hosts.get(p.key, {"crashed": "not run"}), gateways.get(p.key, {}))
        for p in packages
    ]


if __name__ == "__main__":
    sys.exit(main())
