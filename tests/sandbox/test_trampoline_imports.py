"""The trampoline is a Python started for every supervised (or, without ``CAP_SYS_ADMIN``,
namespaced) child: what it imports is paid at each such start, so it imports the standard
library's plain modules and the sandbox's stdlib-only ones (``_confining``), never
``dataclasses``, ``typing`` or ``pathlib`` (each costs a start more than what the trampoline
does), nor the rest of the gateway. Run for real, with ``-X importtime``, on a real spec."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gateway.sandbox import (
    detect_support,
    grants_from,
    package_sandbox,
    python_runtime_paths,
)
from gateway.sandbox._confine import prepare
from gateway.sandbox._isolation import TRAMPOLINE, Trampoline, guard_for, namespace_plan

from .conftest import needs_landlock

pytestmark = needs_landlock

HEAVY = {"dataclasses", "typing", "pathlib", "subprocess", "asyncio", "pydantic", "threading"}
GATEWAY_ALLOWED = {
    "gateway",
    "gateway.base",
    "gateway.base.lazy",
    "gateway.base.errors",
    "gateway.sandbox",
    "gateway.sandbox._confining",
    "gateway.sandbox._mounts",
    "gateway.sandbox._netns",
    "gateway.sandbox._guard",
    "gateway.sandbox._supervisor",
    "gateway.sandbox._emulate",
    "gateway.sandbox._notify",
}


def _imported(tmp_path: Path, *, guarded: bool) -> set[str]:
    workspace = tmp_path / "workspace"
    (workspace / ".git").mkdir(parents=True)
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="t", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    support = detect_support()
    policy = sandbox.policy
    confinement = prepare(policy, support)
    assert confinement is not None
    guard = guard_for(policy, support) if guarded else None
    if guarded and guard is None:
        pytest.skip("needs seccomp user notification (Linux 5.19)")
    trampoline = Trampoline.build(namespace_plan(policy, workspace), confinement, support, guard)
    try:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-I", "-S", str(TRAMPOLINE), trampoline.spec,
             "/bin/true"],
            pass_fds=trampoline.inherited, cwd=workspace, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
    finally:
        trampoline.started()
        trampoline.abandon()
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


@pytest.mark.parametrize("guarded", [True, False], ids=["supervised", "namespaces only"])
def test_the_trampoline_imports_only_plain_modules(tmp_path: Path, guarded: bool) -> None:
    imported = _imported(tmp_path, guarded=guarded)
    assert "gateway.sandbox._confining" in imported  # it did import what it needs
    assert imported & HEAVY == set()
    assert {m for m in imported if m.split(".")[0] in ("gateway", "adapters")} <= GATEWAY_ALLOWED
    if not guarded:
        assert "gateway.sandbox._supervisor" not in imported
