"""Resource limits of a package's processes: memory, processes, file size, CPU share.

``ResourceLimits`` is plain data carried by a ``SandboxPolicy``. Where the kernel delegates
cgroups to the gateway (``_cgroups``), memory, processes and CPU weight hold for the
package's processes together; elsewhere they fall back to rlimits, set on each process
(``apply_rlimits``), which are weaker and said so in docs/security.md:

- memory: ``RLIMIT_DATA`` (the heap and private writable mappings), not ``RLIMIT_AS``: V8
  reserves address space it never touches, and ``new WebAssembly.Memory`` fails under an
  ``RLIMIT_AS`` of 8 GiB;
- processes: ``RLIMIT_NPROC`` counts every task of the user, not of the package, and is not
  enforced for root at all; it is set to the tasks of the whole machine now plus a margin,
  so a fork bomb stops after a bounded number and the user's other processes may still grow;
- CPU: no rlimit. ``RLIMIT_CPU`` counts seconds used and would kill a long-running sidecar
  that merely worked; each package is its own session, so the scheduler's autogroups share
  the CPU between packages, not between their threads.

Always: ``RLIMIT_FSIZE`` (a file written past the limit: ``SIGXFSZ``, or ``EFBIG`` where it
is ignored, as Python does) and ``RLIMIT_CORE`` 0 (no core dump: it would hold whatever the
process held). Hard and soft limits alike, so a package cannot raise them again.
"""

from __future__ import annotations

import contextlib
import re
import resource
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

__all__ = [
    "LIMIT_NAMES",
    "ResourceLimits",
    "apply_rlimits",
    "format_size",
    "limits_from_settings",
    "node_heap_argument",
    "parse_size",
    "rlimits_for",
]

_KIB, _MIB, _GIB = 1 << 10, 1 << 20, 1 << 30
_UNITS = {"": 1, "k": _KIB, "m": _MIB, "g": _GIB, "t": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)
_OFF = ("off", "none", "unlimited", "max")
_NPROC_MARGIN = 4
"""``RLIMIT_NPROC`` is the machine's tasks now plus this many times the package's limit."""
_NODE_HEAP_SHARE = 0.75
"""Of the memory limit, what V8's old space may take: the rest is its young space, code,
buffers outside the heap and Node itself. Reaching it is a clean ``heap out of memory``."""

LIMIT_NAMES: dict[str, str] = {
    "memory": "memory of its processes together (cgroup) or of each (RLIMIT_DATA)",
    "pids": "processes and threads of the package (cgroup pids.max; RLIMIT_NPROC without)",
    "file_size": "the largest file a process may write (RLIMIT_FSIZE)",
    "cpu_weight": "its share of the CPU against other packages, 1-10000 (cgroup only)",
}
"""The keys of ``$gateway.limits`` in a package's config, and what each limits."""


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """None: no limit of that kind. The defaults are far above what a real package uses."""

    memory: int | None = 2 * _GIB
    pids: int | None = 256
    file_size: int | None = _GIB
    cpu_weight: int | None = 100
    """cgroup v2's ``cpu.weight`` scale: 100 is everyone's default share."""
    group: str = ""
    """Whose processes these are (a package id): each group gets its own cgroup, shared by
    all its processes. Empty: per-process rlimits only."""

    def widest(self, others: Iterable[ResourceLimits]) -> ResourceLimits:
        """One process hosting several packages gets the largest of their limits."""
        values: dict[str, Any] = {}
        for name in LIMIT_NAMES:
            candidates = [getattr(limits, name) for limits in (self, *others)]
            values[name] = None if None in candidates else max(candidates)
        return replace(self, **values)

    def describe(self) -> str:
        """One line, e.g. ``memory 2 GiB, 256 processes, files up to 1 GiB, CPU weight 100``."""
        parts = [
            f"memory {format_size(self.memory)}" if self.memory else "memory unlimited",
            f"{self.pids} processes" if self.pids else "processes unlimited",
            f"files up to {format_size(self.file_size)}" if self.file_size else "files unlimited",
        ]
        if self.cpu_weight is not None:
            parts.append(f"CPU weight {self.cpu_weight}")
        return ", ".join(parts)


def format_size(size: int | None) -> str:
    if size is None:
        return "unlimited"
    for unit, scale in (("GiB", _GIB), ("MiB", _MIB), ("KiB", _KIB)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} bytes"


def parse_size(value: object) -> int | None:
    """``512M``, ``2G``, ``1.5GiB``, ``4096`` (bytes) or ``off`` (None); ValueError else."""
    if value is None or (isinstance(value, str) and value.strip().lower() in _OFF):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        number, unit = float(value), ""
    else:
        match = _SIZE.match(str(value))
        if match is None:
            raise ValueError(f"{value!r} is not a size (e.g. 512M, 2G, or off)")
        number, unit = float(match.group(1)), match.group(2).lower()
    size = int(number * _UNITS[unit])
    if size <= 0:
        raise ValueError(f"{value!r} is not a positive size")
    return size


def _count(value: object, low: int, high: int) -> int | None:
    if value is None or (isinstance(value, str) and value.strip().lower() in _OFF):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValueError(f"{value!r} is not a whole number") from None
    if not low <= number <= high:
        raise ValueError(f"{number} is not between {low} and {high}")
    return number


def limits_from_settings(
    settings: Mapping[str, Any] | None, group: str, base: ResourceLimits | None = None
) -> tuple[ResourceLimits, list[str]]:
    """The limits a package's ``$gateway.limits`` sets over ``base`` (the defaults), and a
    problem for each value that cannot be used (that one keeps its default)."""
    limits = replace(base or ResourceLimits(), group=group)
    if settings is None:
        return limits, []
    if not isinstance(settings, Mapping):
        return limits, [f"$gateway.limits must be an object, not {type(settings).__name__}"]
    problems: list[str] = []
    for key, value in settings.items():
        try:
            if key == "memory":
                limits = replace(limits, memory=parse_size(value))
            elif key == "file_size":
                limits = replace(limits, file_size=parse_size(value))
            elif key == "pids":
                limits = replace(limits, pids=_count(value, 1, 4_194_304))
            elif key == "cpu_weight":
                limits = replace(limits, cpu_weight=_count(value, 1, 10_000))
            else:
                problems.append(f"$gateway.limits has no {key!r} (known: {', '.join(LIMIT_NAMES)})")
        except ValueError as error:
            problems.append(f"$gateway.limits.{key}: {error}")
    return limits, problems


def _machine_tasks() -> int:
    """Every task on the machine (``/proc/loadavg``'s ``running/total``): an upper bound of
    the user's own, read in one go instead of walking ``/proc``."""
    try:
        return int(Path("/proc/loadavg").read_text(encoding="ascii").split()[3].split("/")[1])
    except (OSError, ValueError, IndexError):
        return 32_768


def rlimits_for(limits: ResourceLimits, *, memory: bool, pids: bool) -> dict[int, int]:
    """The rlimits for one process; ``memory`` and ``pids`` when no cgroup holds them."""
    chosen = {resource.RLIMIT_CORE: 0}
    if limits.file_size is not None:
        chosen[resource.RLIMIT_FSIZE] = limits.file_size
    if memory and limits.memory is not None:
        chosen[resource.RLIMIT_DATA] = limits.memory
    if pids and limits.pids is not None:
        chosen[resource.RLIMIT_NPROC] = _machine_tasks() + _NPROC_MARGIN * limits.pids
    return chosen


def apply_rlimits(pid: int, chosen: Mapping[int, int]) -> None:
    """Set each limit on ``pid``, soft and hard, never above what it already has (lowering
    needs no privilege; raising would)."""
    for kind, value in chosen.items():
        with contextlib.suppress(ProcessLookupError):
            _, hard = resource.prlimit(pid, kind)
            ceiling = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.prlimit(pid, kind, (ceiling, ceiling))


def node_heap_argument(argv: list[str], limits: ResourceLimits) -> list[str]:
    """``argv`` with ``--max-old-space-size`` after a Node executable when a memory limit is
    set and the command does not choose its own: V8 then stops at a clean "heap out of
    memory" before the limit kills it in the middle of an allocation. Node is the program,
    or the one a ``sh -c SCRIPT node …`` launcher runs (the sidecars' moves its pipes so)."""
    if limits.memory is None or any(a.startswith("--max-old-space-size") for a in argv):
        return argv
    at = 0 if argv and _is_node(argv[0]) else None
    if len(argv) > 3 and argv[1] == "-c" and _is_node(argv[3]):
        at = 3
    if at is None:
        return argv
    heap = max(64, int(limits.memory * _NODE_HEAP_SHARE) // _MIB)
    return [*argv[: at + 1], f"--max-old-space-size={heap}", *argv[at + 1 :]]


def _is_node(program: str) -> bool:
    return Path(program).name in ("node", "nodejs")
