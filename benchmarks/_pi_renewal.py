"""What making a Pi package's extensions again costs at a new session (bench_pi.py
``--renewal``): ``@aliou/pi-processes`` (packed in tests/fixtures/npm) installed and started,
then sessions on the same sidecar as the warm session runs commands (``use_session``,
``start_session``, one ``process`` call, ``end_session``). A session_end tears its
extensions down, so each next session makes them again. Measured: the sidecar's CPU per such
session (utime + stime from /proc, 10 ms ticks: summed over the rounds, then divided), and
the renewal's own figures from the sidecar's log (``renewed … ms of CPU``: process.cpuUsage
around it)."""

from __future__ import annotations

import os
import re
import statistics
import tempfile
from pathlib import Path

from gateway import Gateway, GatewayConfig, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

ROOT = Path(__file__).resolve().parents[1]
PACKED = ROOT / "tests" / "fixtures" / "npm" / "aliou-pi-processes-0.12.0.tgz"
PACKAGE = "@aliou/pi-processes"
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
RENEWED = re.compile(r"renewed \S+ for a new session: ([\d.]+) ms, ([\d.]+) ms of CPU")


def _install(home: Path) -> None:
    report = install(home, str(PACKED), kind="npm", inspector=load_adapters().inspect)
    wanted = [p.name for p in report.entry.permissions]  # as installed: inspected once
    with StateStore.open(home) as store:
        if wanted:
            store.grant(PACKAGE, wanted, wanted)
        store.set_trusted(PACKAGE, True)
        store.set_enabled(PACKAGE, True)


def _cpu_ms(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_MS


async def _round(gateway: Gateway) -> None:
    gateway.use_session()
    await gateway.start_session()
    await gateway.call_tool("process", {"action": "list"})
    await gateway.end_session()


async def measure(rounds: int) -> dict[str, list[float]]:
    """CPU ms of the sidecar per session after the first (each makes the extensions again);
    the renewals' own wall and CPU ms from its log."""
    found: dict[str, list[float]] = {"session": []}
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        config = GatewayConfig(home=base / "home" / ".gateway", user_home=base / "home")
        _install(config.home)
        (base / "ws").mkdir()
        async with open_gateway(base / "ws", trust=True, config=config) as gateway:
            await _round(gateway)  # started; its first session
            (process,) = [p for p in gateway.processes if p.plan.name == PACKAGE]
            assert process.pid is not None
            before = _cpu_ms(process.pid)  # in ticks: the rounds are summed, then divided
            for _ in range(rounds):
                await _round(gateway)
            found["session"].append((_cpu_ms(process.pid) - before) / rounds)
            log = process.plan.log_path.read_text(errors="replace")
    found["wall"] = [float(m[0]) for m in RENEWED.findall(log)]
    found["cpu"] = [float(m[1]) for m in RENEWED.findall(log)]
    return found


def report(found: dict[str, list[float]]) -> None:
    def median(name: str) -> str:
        values = found[name]
        return f"{statistics.median(values):6.1f} ms (n={len(values)})" if values else "—"

    print("a new session of @aliou/pi-processes on the same sidecar:")
    print(f"  renewal alone (sidecar log, median): {median('wall')} wall, {median('cpu')} CPU")
    print(f"  sidecar CPU per session (start, a call, end; renewing), mean: {median('session')}")
