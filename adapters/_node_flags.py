"""The flags every Node sidecar starts with: the launch (``adapters._sidecar``) passes them,
and ``gateway setup`` (``adapters._sidecar_prepare``) warms the compile cache with the same
ones (``node_flags``)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["NODE_FLAGS", "TIER_UP_FLAGS", "TIER_UP_MODULE", "node_flags"]

TIER_UP_FLAGS: tuple[str, ...] = (
    "--invocation-count-for-maglev=50000",
    "--invocation-count-for-turbofan=500000",
)
"""V8 optimizes a function once it ran 400 times (Maglev) or 3,000 times (TurboFan). A
sidecar's start runs Node's module resolution and the packages' set-up code just past that,
so both optimizing compilers ran during every start — their code (shared pages of the Node
binary) and their zones counted in each process's resident memory, and the work was thrown
away (start code runs once). Tier-up 125 times later: 8.5 MB less RSS for a small package,
12.5 MB for a large one, no change to a call's round trip: benchmarks/bench_isolation.py.
Code that really is hot (a tool's loop: on-stack replacement is unchanged; a function called
50,000 times) is still optimized. Set by ``TIER_UP_MODULE`` once the built-in modules are
loaded, not on the command line: there they made V8 reject Node's code cache of every
built-in module a start loads (docs/performance/isolation.md)."""
TIER_UP_MODULE = Path("lib") / "tier-up.mjs"
"""The module, relative to the sidecar's folder, that Node loads before the sidecar
(``--import``): the built-ins a start loads, then ``TIER_UP_FLAGS``."""
NODE_FLAGS: tuple[str, ...] = ("--max-semi-space-size=1",)
"""A 1 MB young generation: ~30 MB less resident memory per sidecar (benchmarks/bench_pi.py)
at no measurable cost to a tool call. ``GATEWAY_PI_NODE_FLAGS`` adds flags to every Node
sidecar (``--lite-mode`` saves ~2 MB more but makes a call's round trip 60 % slower:
benchmarks/bench_isolation.py)."""


def node_flags(where: Path) -> tuple[str, ...]:
    """The Node flags of a sidecar run from the folder ``where``: ``NODE_FLAGS`` and the
    ``--import`` of ``TIER_UP_MODULE`` (as a file URL: any path)."""
    return (*NODE_FLAGS, f"--import={(where / TIER_UP_MODULE).as_uri()}")
