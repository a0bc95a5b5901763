"""The Pi sidecar's cold start, step by step, against a bare ``node -e 0`` in the same run.

Each variant spawns the sidecar for one small TypeScript package exactly as the gateway
does (the launch ``plan_pi`` makes, with the package's own compile cache), sends
``initialize`` and times the ``register`` line. Variants run interleaved, one start each per
round, so machine drift hits them alike; medians are reported.

- ``node -e 0``: the floor;
- as before: TypeBox unbundled (``GATEWAY_SIDECAR_UNBUNDLED=1``), the compile cache empty —
  the first start after an install, before this work;
- + TypeBox bundled (``gateway setup``), cache still empty;
- + compiled at install (``sidecar.mjs --compile`` into the cache): the first start after an
  install now;
- again: a later start (the same cache, warm file system).
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from adapters._sidecar import sidecar_script
from adapters.pi import pi_package_spec, plan_pi
from gateway.model import LaunchSpec
from gateway.runtime import child_environment

__all__ = ["VARIANTS", "start_steps"]

VARIANTS = ("node -e 0", "as before", "+ TypeBox bundle", "+ compiled at install", "again")
ENTRY = ["extensions/index.ts"]


def _to_register(command: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=env, cwd=cwd,
    )  # fmt: skip
    assert process.stdin and process.stdout
    init = {"type": "initialize", "version": 1, "workspace": str(cwd), "session_id": "b"}
    process.stdin.write((json.dumps(init) + "\n").encode())
    process.stdin.flush()
    line = process.stdout.readline()
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    assert line.startswith((b'{"type":"register"', b"ready")), line
    return elapsed


def _compile(node: str, package: Path, cache: Path) -> float:
    spec = {"packages": [pi_package_spec("bench", package, ENTRY, cache)]}
    start = time.perf_counter()
    subprocess.run(
        [node, str(sidecar_script()), "--compile", json.dumps(spec)],
        check=True, capture_output=True, env=child_environment(), cwd=package,
    )  # fmt: skip
    return time.perf_counter() - start


def start_steps(package: Path, scratch: Path, rounds: int) -> dict[str, float]:
    """Median seconds to ``register`` of each variant; plus ``compile`` (the install step)."""
    base = child_environment()
    samples: dict[str, list[float]] = {name: [] for name in (*VARIANTS, "compile")}
    for index in range(rounds):
        fresh = scratch / f"cache-{index}"
        spec = plan_pi("bench", package, ENTRY, cache=fresh)
        assert isinstance(spec, LaunchSpec), spec
        node = spec.command[3]  # /bin/sh -c MOVE node …
        script = "process.stdin.once('data', () => { console.log('ready'); process.exit(0); })"
        floor = [node, "-e", script]
        unbundled = {**base, "GATEWAY_SIDECAR_UNBUNDLED": "1"}
        runs = [
            ("node -e 0", floor, base),
            ("as before", spec.command, unbundled),
            ("+ TypeBox bundle", spec.command, base),
        ]
        for name, command, env in runs:
            shutil.rmtree(fresh, ignore_errors=True)  # each starts with an empty cache
            samples[name].append(_to_register(command, env, package))
        shutil.rmtree(fresh, ignore_errors=True)
        samples["compile"].append(_compile(node, package, fresh))
        samples["+ compiled at install"].append(_to_register(spec.command, base, package))
        samples["again"].append(_to_register(spec.command, base, package))
        shutil.rmtree(fresh, ignore_errors=True)
    return {name: statistics.median(values) for name, values in samples.items()}
