"""``gateway doctor``: one line per check — ``ok``, ``warn`` or ``fail`` — with the command
that fixes each one that is not ok. Exit 0 when nothing fails, 1 otherwise.

The checks are in ``gateway.cli._doctor_checks`` (this machine) and
``gateway.cli._doctor_home`` (``GATEWAY_HOME``); the adapters add theirs through the
``extension_gateway.doctor`` entry points (the Node sidecar's modules). A check that raises is
a failed check naming the error: a broken home never ends the report."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli._doctor_checks import (
    FAIL,
    OK,
    WARN,
    Check,
    gateway_check,
    node_check,
    node_env_check,
    python_check,
    sandbox_checks,
)
from gateway.cli._doctor_home import (
    disk_check,
    home_check,
    package_checks,
    settings_check,
    store_check,
)
from gateway.cli._output import print_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["DOCTOR_ENTRY_POINTS", "doctor_checks", "run_doctor"]

DOCTOR_ENTRY_POINTS = "extension_gateway.doctor"


def _safely(name: str, check: Callable[[], list[Check]]) -> list[Check]:
    try:
        return check()
    except Exception as error:  # a check of a broken home must not end the report
        return [Check(name, FAIL, f"the check failed: {type(error).__name__}: {error}")]


def doctor_checks(home: Path) -> list[Check]:
    """Every check, in report order."""
    checks = [
        *_safely("python", lambda: [python_check()]),
        *_safely("gateway", lambda: [gateway_check()]),
        *_safely("node", lambda: [node_check()]),
        *_safely("node environment", lambda: [node_env_check(home)]),
        *_safely("adapters", lambda: _adapter_checks(home)),
        *_safely("sandbox", sandbox_checks),
    ]
    home_state = _safely("home", lambda: [home_check(home)])
    checks += home_state
    if home_state[0].status != OK:
        return checks
    packages = 0

    def store() -> list[Check]:
        nonlocal packages
        check, packages = store_check(home)
        return [check]

    store_state = _safely("state store", store)
    checks += store_state
    checks += _safely("settings", lambda: [settings_check(home)])
    checks += _safely("disk", lambda: [disk_check(home)])
    if packages and store_state[0].status == OK:
        checks += _safely("packages", lambda: package_checks(home))
    return checks


def _adapter_checks(home: Path) -> list[Check]:
    from importlib.metadata import entry_points  # not at module level: ~10 ms at start

    found = sorted(entry_points(group=DOCTOR_ENTRY_POINTS), key=lambda point: point.name)
    if not found:
        reinstall = "pip install --force-reinstall extension-gateway"
        return [Check("adapters", WARN, f"no {DOCTOR_ENTRY_POINTS} entry points", reinstall)]
    checks: list[Check] = []
    for point in found:
        checks += _safely(point.name, partial(_adapter_check, point, home))
    return checks


def _adapter_check(point: EntryPoint, home: Path) -> list[Check]:
    check: Callable[[Path], list[tuple[str, str, str, str]]] = point.load()
    return [Check(name, status if status in (OK, WARN) else FAIL, found, fix)
            for name, status, found, fix in check(home)]  # fmt: skip


def run_doctor(args: argparse.Namespace, config: GatewayConfig) -> int:
    checks = doctor_checks(config.home)
    failed = any(check.status == FAIL for check in checks)
    if args.json:
        print_json({"ok": not failed, "checks": [check.to_dict() for check in checks]})
        return 1 if failed else 0
    width = max(len(check.name) for check in checks)
    for check in checks:
        print(f"{check.status:<4}  {check.name:<{width}}  {check.found}")
        if check.status != OK and check.fix:
            print(f"{'':<4}  {'':<{width}}  fix: {check.fix}")
    counts = {status: sum(c.status == status for c in checks) for status in (OK, WARN, FAIL)}
    print(f"{counts[OK]} ok, {counts[WARN]} warn, {counts[FAIL]} fail")
    return 1 if failed else 0
