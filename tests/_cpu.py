"""Where the suite's time goes: ``pytest --cpu-by-module`` prints, after the run, each test
module's wall time and CPU time — of the test process itself and of the child processes it
started and reaped (``RUSAGE_CHILDREN``: the packages' runtimes, the sidecars, the CLI
processes) — the heaviest first.

On a shared 2-core machine the wall time of a module is mostly waiting for a core; its CPU
time is what it costs, and what ``-n 4`` divides among the cores. Each phase (set-up, call,
tear-down) is measured in the process that runs it, so module-scoped fixtures count for the
test that builds or ends them, and the figures travel with the test's report (xdist workers
included). Not counted: a process that outlives its parent and is reaped by someone else
(a warm session's server, a double-forked daemon). A report, never an assertion: no test
depends on these figures."""

from __future__ import annotations

import resource
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, cast

import pytest

__all__ = ["add_option", "register"]

_KEY = "cpu-by-module"
_PHASES = pytest.StashKey[dict[str, tuple[float, float, float]]]()


def _now() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        time.monotonic(),
        own.ru_utime + own.ru_stime,
        children.ru_utime + children.ru_stime,
    )


@dataclass
class _Module:
    wall: float = 0.0
    own: float = 0.0
    children: float = 0.0
    tests: int = 0


class CpuByModule:
    """Measures each phase where it runs; adds up the reports where they arrive."""

    def __init__(self) -> None:
        self.modules: dict[str, _Module] = {}

    def _measure(self, item: pytest.Item, phase: str) -> Generator[None, Any, None]:
        before = _now()
        yield
        after = _now()
        spent = (after[0] - before[0], after[1] - before[1], after[2] - before[2])
        item.stash.setdefault(_PHASES, {})[phase] = spent

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, Any, None]:
        yield from self._measure(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, None]:
        yield from self._measure(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, Any, None]:
        yield from self._measure(item, "teardown")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, Any, None]:
        outcome = yield
        measured = item.stash.get(_PHASES, {}).get(call.when)
        if measured is not None:
            outcome.get_result().user_properties.append((_KEY, measured))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name != _KEY:
                continue
            module = self.modules.setdefault(report.nodeid.split("::")[0], _Module())
            wall, own, children = cast(tuple[float, float, float], value)  # after xdist: a list
            module.wall, module.own = module.wall + wall, module.own + own
            module.children += children
            module.tests += report.when == "call"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.modules:
            return
        write = terminalreporter.write_line
        terminalreporter.section("CPU by module (seconds; children: reaped child processes)")
        write(f"{'wall':>8} {'cpu':>8} {'own':>7} {'children':>8} {'tests':>5}  module")
        rows = sorted(self.modules.items(), key=lambda row: -(row[1].own + row[1].children))
        for name, m in rows:
            cpu = m.own + m.children
            write(f"{m.wall:8.1f} {cpu:8.1f} {m.own:7.1f} {m.children:8.1f} {m.tests:5d}  {name}")
        wall = sum(m.wall for _, m in rows)
        cpu = sum(m.own + m.children for _, m in rows)
        write(f"{wall:8.1f} {cpu:8.1f}  in all ({len(rows)} modules)")


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-by-module",
        action="store_true",
        help="after the run, print each test module's wall and CPU time, children included",
    )


def register(config: pytest.Config) -> None:
    if config.getoption("--cpu-by-module"):
        config.pluginmanager.register(CpuByModule(), "cpu-by-module")
