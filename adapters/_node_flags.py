"""The flags every Node sidecar starts with: the launch (``adapters._sidecar``) passes them,
and ``gateway setup`` (``adapters._sidecars``) warms the compile cache with the same ones."""

from __future__ import annotations

__all__ = ["NODE_FLAGS", "TIER_UP_FLAGS"]

TIER_UP_FLAGS: tuple[str, ...] = (
    "--invocation-count-for-maglev=50000",
    "--invocation-count-for-turbofan=500000",
)
"""V8 optimizes a function once it ran 400 times (Maglev) or 3,000 times (TurboFan). A
sidecar's start runs Node's module resolution and the packages' set-up code just past that,
so both optimizing compilers ran during every start — their code (shared pages of the Node
binary) and their zones counted in each process's resident memory, and the work was thrown
away (start code runs once). Tier-up 125 times later: 8.5 MB less RSS for a small package,
12.5 MB for a large one, no change to a call's round trip, ~15 ms more CPU to start (start
code runs longer in the baseline tier; the compile cache takes it back):
benchmarks/bench_isolation.py. Code that really is hot (a tool's loop: on-stack replacement
is unchanged; a function called 50,000 times) is still optimized."""
NODE_FLAGS: tuple[str, ...] = ("--max-semi-space-size=1", *TIER_UP_FLAGS)
"""A 1 MB young generation: ~30 MB less resident memory per sidecar (benchmarks/bench_pi.py)
at no measurable cost to a tool call; ``TIER_UP_FLAGS``. ``GATEWAY_PI_NODE_FLAGS`` adds flags
to every Node sidecar (``--lite-mode`` saves ~2 MB more but makes a call's round trip 60 %
slower: benchmarks/bench_isolation.py)."""
