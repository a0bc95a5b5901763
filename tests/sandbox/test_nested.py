"""A gateway inside a gateway's sandbox (``migrate --load``'s throwaway, which says so with
``SANDBOXED_VARIABLE``): Landlock forbids mount(2) to a confined process, so it must not
plan namespaces it cannot make there (tests/migrate load packages that way)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gateway.sandbox import (
    SANDBOXED_VARIABLE,
    grants_from,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)

from .conftest import needs_landlock

PROBE = (
    "from gateway.sandbox import detect_support\n"
    "s = detect_support()\n"
    "print(s.private_mounts, s.user_namespaces)\n"
)
ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, *, confined: bool) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env["PYTHONPATH"] = str(ROOT)
    argv = [sys.executable, "-c", PROBE]
    if not confined:
        return subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    env[SANDBOXED_VARIABLE] = "1"
    sandbox = package_sandbox(
        home=tmp_path / "gw", package_id="nested", package_root=ROOT, workspace=None,
        grants=grants_from(()), runtime=[*python_runtime_paths(), ROOT], limits=None,
    )  # fmt: skip
    child = spawn_confined(
        argv, policy=sandbox.policy, env={**env, **sandbox.environment},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )  # fmt: skip
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    return out.decode()


@needs_landlock
def test_a_confined_gateway_plans_no_namespaces_and_an_unconfined_one_may(tmp_path: Path) -> None:
    assert _run(tmp_path, confined=True).split() == ["False", "False"]
    # The control: the same probe outside the sandbox finds a way to make them (as root or
    # through user namespaces) on a machine that has one, as this suite's machine does.
    assert "True" in _run(tmp_path, confined=False).split()
