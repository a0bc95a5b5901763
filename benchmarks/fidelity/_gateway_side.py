"""The (b) side: each package with the gateway, as a user does — a private HOME and
GATEWAY_HOME, installed or placed in its discovery folder, then ``gateway list --json``
(``_gateway_driver.py`` runs the command lines)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from _context import Context
from _corpus import Package

HERE = Path(__file__).resolve().parent


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
