"""The (a) side: each package loaded by its ecosystem's own host, outside the gateway — the
package installed as that ecosystem installs it, one job per package, one host process per
group (OpenClaw: per reference version, ``_openclaw_reference``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import _agent_plugins
from _claude import claude_argv
from _context import NANOBOT_UPSTREAM, Context, HostSetupFailed, nanobot_upstream
from _corpus import REPO, SIDECAR_MODULES, Package, extract
from _openclaw_reference import PINNED_OPENCLAW, NoReference, openclaw_dir, openclaw_reference

HERE = Path(__file__).resolve().parent


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


def _host_argv(
    ecosystem: str, jobs: list[dict[str, Any]], ctx: Context, out_file: Path, env: dict[str, str]
) -> list[str] | dict[str, dict[str, Any]]:
    """The own host's command line for ``jobs``, or each job's result when it cannot run."""
    if ecosystem == "pi":
        pi = SIDECAR_MODULES / "@earendil-works" / "pi-coding-agent"
        return [ctx.node, str(HERE / "pi_host.mjs"), "--pi", str(pi), "--out", str(out_file)]
    if ecosystem == "openclaw":
        version = jobs[0].get("openclaw", PINNED_OPENCLAW)
        try:
            reference = openclaw_dir(version, ctx)
        except (HostSetupFailed, subprocess.TimeoutExpired) as error:
            return {j["key"]: {"unavailable": f"OpenClaw {version}: {error}"} for j in jobs}
        host = str(HERE / "openclaw_host.mjs")
        return [ctx.node, host, "--openclaw", str(reference), "--out", str(out_file)]
    if ecosystem == "claude":
        return claude_argv(ctx.node, SIDECAR_MODULES / "openclaw", out_file)
    if ecosystem == "nanobot":
        upstream = nanobot_upstream(ctx)
        if upstream is None:
            why = (
                "no copy of nanobot upstream's extension branch "
                f"({NANOBOT_UPSTREAM[0]}@{NANOBOT_UPSTREAM[1][:9]}) in {ctx.mirrors}"
            )
            return {j["key"]: {"unavailable": why} for j in jobs}
        env["PYTHONPATH"] = str(upstream)
        return [sys.executable, "-P", str(HERE / "_nanobot_host.py"), str(out_file)]
    if ecosystem == "agent-plugins":
        python = _agent_plugins.reference_python(ctx.cache)
        if isinstance(python, str):
            return {j["key"]: {"unavailable": python} for j in jobs}
        return [str(python), "-P", str(HERE / "_agent_plugins.py"), str(out_file)]
    return [sys.executable, str(HERE / "_nimlet_host.py"), str(out_file)]


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
    argv = _host_argv(ecosystem, jobs, ctx, out_file, env)
    if isinstance(argv, dict):
        return argv
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
    """The own host's job for ``pkg`` at ``root``. Raises ``NoReference`` for an OpenClaw
    plugin no OpenClaw release can be the reference of."""
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
        # the offline subset has only the pinned OpenClaw (the older ones are downloaded)
        job["openclaw"] = PINNED_OPENCLAW if ctx.args.quick else openclaw_reference(root)
    if pkg.ecosystem == "nimlet":
        job["kind"] = pkg.kind
    return job


__all__ = ["NoReference", "host_job", "host_root", "run_host"]
