"""A cgroup per package, where the kernel lets the gateway make one.

A cgroup holds a package's processes together: ``memory`` (the OOM killer stops the tree
at the limit), ``pids`` (``fork`` fails with EAGAIN past it) and ``cpu`` (a weight against
the other packages). Where the gateway can use them:

- **cgroup v2** with the controllers available to the gateway's own cgroup, and that cgroup
  writable: as root on a cgroup2 mount, or under a systemd delegation (``systemd-run
  --user --scope -p Delegate=yes gateway …``). A v2 cgroup holding processes cannot hand
  controllers to children, so when the gateway is alone in its cgroup it moves itself into
  a leaf (``gateway``) first; when it shares it (a terminal's scope), v2 is not used.
- **cgroup v1** (older distributions, many containers): each controller's hierarchy
  writable at the gateway's own cgroup, as for root.

The gateway's groups live in one folder, ``extension-gateway-<pid>``, beside its own cgroup
(v2: below it), one group per package; they are removed when the gateway exits, and those
of a gateway that died at the next start. ``GATEWAY_CGROUPS=off`` keeps to rlimits.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from gateway.sandbox._limits import ResourceLimits
from gateway.sandbox._names import safe_name

__all__ = ["CgroupGroup", "Cgroups", "cleanup_cgroups", "detect_cgroups", "parse_cgroups"]

WANTED = ("memory", "pids", "cpu")
_PREFIX = "extension-gateway-"
_V1_SHARES_PER_WEIGHT = 1024 / 100  # v1's cpu.shares default is 1024, v2's cpu.weight 100


def _read(path: Path) -> str:
    return path.read_text(encoding="ascii", errors="replace")


def _write(path: Path, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _counter(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


@dataclass(slots=True)
class CgroupGroup:
    """One package's cgroup: one folder (v2) or one per controller's hierarchy (v1)."""

    name: str
    version: int
    folders: dict[str, Path]
    """controller → its folder."""
    _seen: dict[str, int] = field(default_factory=dict)
    _set: ResourceLimits | None = None

    def set_limits(self, limits: ResourceLimits) -> None:
        """Write the limits (only when they changed: every spawn of the package asks)."""
        if limits == self._set:
            return
        for controller, folder in self.folders.items():
            for file, value in _settings(self.version, controller, limits):
                _write(folder / file, value)
        self._set = limits

    def attach(self, pid: int) -> None:
        for folder in dict.fromkeys(self.folders.values()):
            _write(folder / "cgroup.procs", str(pid))

    def counters(self) -> dict[str, int]:
        """How often the kernel enforced a limit: OOM kills (memory), refused forks (pids)."""
        found: dict[str, int] = {}
        memory, pids = self.folders.get("memory"), self.folders.get("pids")
        with contextlib.suppress(OSError):
            if memory is not None:
                events = "memory.events" if self.version == 2 else "memory.oom_control"
                found["memory"] = _counter(_read(memory / events), "oom_kill")
            if pids is not None:
                found["pids"] = _counter(_read(pids / "pids.events"), "max")
        return found

    def exceeded(self) -> list[str]:
        """The limits enforced since the last call (or since the group was made)."""
        now = self.counters()
        hit = [name for name, count in now.items() if count > self._seen.get(name, 0)]
        self._seen.update(now)
        return hit

    def remove(self, within: float = 0.0) -> None:
        """Remove the group once no process is left in it, waiting up to ``within``
        seconds for processes just killed to finish dying."""
        deadline = time.monotonic() + within
        for folder in dict.fromkeys(self.folders.values()):
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() >= deadline:
                        break  # still held: the next gateway's start collects it
                    time.sleep(0.02)


def _settings(version: int, controller: str, limits: ResourceLimits) -> list[tuple[str, str]]:
    if controller == "memory":
        if version == 2:
            return [("memory.max", str(limits.memory) if limits.memory else "max")]
        return [("memory.limit_in_bytes", str(limits.memory) if limits.memory else "-1")]
    if controller == "pids":
        return [("pids.max", str(limits.pids) if limits.pids else "max")]
    weight = limits.cpu_weight or 100
    if version == 2:
        return [("cpu.weight", str(weight))]
    return [("cpu.shares", str(max(2, min(262_144, round(weight * _V1_SHARES_PER_WEIGHT)))))]


@dataclass(frozen=True, slots=True)
class _Hierarchy:
    version: int
    controllers: tuple[str, ...]
    own: Path
    """The gateway's own cgroup in this hierarchy."""


class Cgroups:
    """What this gateway can use, and its groups, made on first use."""

    def __init__(self, hierarchies: list[_Hierarchy], reason: str = "") -> None:
        self._hierarchies = hierarchies
        self.reason = reason
        self._bases: dict[Path, Path] | None = None
        self._groups: dict[str, CgroupGroup] = {}
        self._lock = threading.Lock()
        self._at_exit = False

    @property
    def version(self) -> int:
        return self._hierarchies[0].version if self._hierarchies else 0

    @property
    def controllers(self) -> frozenset[str]:
        return frozenset(c for h in self._hierarchies for c in h.controllers)

    def describe(self) -> str:
        if not self._hierarchies:
            return f"no cgroups ({self.reason or 'not available'})"
        return f"cgroup v{self.version} ({', '.join(sorted(self.controllers))})"

    def existing(self, name: str) -> CgroupGroup | None:
        """The group of ``name`` if one was made."""
        with self._lock:
            return self._groups.get(name)

    def group(self, name: str) -> CgroupGroup | None:
        """The group of ``name``, made if needed; None when cgroups cannot be used (the
        reason is kept, and rlimits stand in from then on)."""
        if not self._hierarchies or not name:
            return None
        with self._lock:
            found = self._groups.get(name)
            if found is not None:
                return found
            try:
                bases = self._prepare()
                folders: dict[str, Path] = {}
                for hierarchy in self._hierarchies:
                    folder = bases[hierarchy.own] / safe_name(name)
                    folder.mkdir(mode=0o755, exist_ok=True)
                    folders.update(dict.fromkeys(hierarchy.controllers, folder))
            except OSError as error:
                self.reason = f"cannot make a cgroup: {error.strerror or error}"
                self._hierarchies = []
                return None
            group = CgroupGroup(name, self.version, folders)
            group.exceeded()  # counts from now
            self._groups[name] = group
            return group

    def _prepare(self) -> dict[Path, Path]:
        if self._bases is not None:
            return self._bases
        bases: dict[Path, Path] = {}
        for hierarchy in self._hierarchies:
            parent = hierarchy.own
            if hierarchy.version == 2:
                _delegate(parent, hierarchy.controllers)
            _collect_stale(parent)
            base = parent / f"{_PREFIX}{os.getpid()}"
            base.mkdir(mode=0o755, exist_ok=True)
            if hierarchy.version == 2:
                _write(base / "cgroup.subtree_control", _enable(hierarchy.controllers))
            bases[hierarchy.own] = base
        self._bases = bases
        if not self._at_exit:
            self._at_exit = True
            atexit.register(self.cleanup)
        return bases

    def cleanup(self, within: float = 0.0) -> None:
        """Remove the groups that no process holds any more (or, within ``within`` seconds,
        no longer), then the gateway's folder; a later spawn makes them again."""
        with self._lock:
            for group in self._groups.values():
                group.remove(within)
            for base in (self._bases or {}).values():
                with contextlib.suppress(OSError):
                    base.rmdir()
            self._groups.clear()
            self._bases = None


def _enable(controllers: tuple[str, ...]) -> str:
    return " ".join(f"+{c}" for c in controllers)


def _delegate(own: Path, controllers: tuple[str, ...]) -> None:
    """Let ``own``'s children use the controllers. A v2 cgroup with processes cannot (but
    the root): when the gateway is the only one, it moves into a leaf of its own first."""
    try:
        _write(own / "cgroup.subtree_control", _enable(controllers))
        return
    except OSError as error:
        if error.errno != errno.EBUSY:
            raise
    if _read(own / "cgroup.procs").split() != [str(os.getpid())]:
        raise OSError(errno.EBUSY, "the gateway shares its cgroup with other processes")
    leaf = own / "gateway"
    leaf.mkdir(mode=0o755, exist_ok=True)
    _write(leaf / "cgroup.procs", str(os.getpid()))
    _write(own / "cgroup.subtree_control", _enable(controllers))


def _collect_stale(parent: Path) -> None:
    """The folders of gateways that died without removing them."""
    with contextlib.suppress(OSError):
        for folder in parent.iterdir():
            owner = folder.name.removeprefix(_PREFIX)
            if folder.name == owner or not owner.isdigit() or _alive(int(owner)):
                continue
            with contextlib.suppress(OSError):
                for group in folder.iterdir():
                    if group.is_dir():
                        group.rmdir()
                folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _unescape(text: str) -> str:
    """mountinfo writes a space as ``\\040`` (and tab, newline, backslash likewise)."""
    for code in ("040", "011", "012", "134"):
        text = text.replace(f"\\{code}", chr(int(code, 8)))
    return text


def _inside(mount_root: str, point: str, path: str) -> Path | None:
    relative = os.path.relpath(path, mount_root)
    if relative.startswith(".."):
        return None  # the gateway's cgroup is outside what this mount shows
    return Path(point) / relative if relative != "." else Path(point)


def parse_cgroups(mountinfo: str, membership: str) -> Cgroups:
    """From ``/proc/self/mountinfo`` and ``/proc/self/cgroup``: the hierarchies holding the
    wanted controllers whose folder for this process is writable, v2 preferred on a tie."""
    paths: dict[str, str] = {}
    for line in membership.splitlines():
        _, controllers, path = [*line.split(":", 2), "", ""][:3]
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    v1: list[_Hierarchy] = []
    v2: list[_Hierarchy] = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        separator = fields.index("-")
        root, point = _unescape(fields[3]), _unescape(fields[4])
        kind, options = fields[separator + 1], fields[separator + 3].split(",")
        if kind == "cgroup2" and "" in paths and not v2:
            own = _inside(root, point, paths[""])
            available = _available(own)
            if own is not None and available and os.access(own, os.W_OK):
                v2.append(_Hierarchy(2, available, own))
        elif kind == "cgroup":
            for controller in (c for c in WANTED if c in options and c in paths):
                own = _inside(root, point, paths[controller])
                if own is not None and own.is_dir() and os.access(own, os.W_OK):
                    v1.append(_Hierarchy(1, (controller,), own))
    count1 = len({c for h in v1 for c in h.controllers})
    count2 = len(v2[0].controllers) if v2 else 0
    if count2 and count2 >= count1:
        return Cgroups(v2)
    if count1:
        return Cgroups(v1)
    return Cgroups([], "the kernel delegates no memory, pids or cpu controller to the gateway")


def _available(own: Path | None) -> tuple[str, ...]:
    if own is None:
        return ()
    try:
        offered = _read(own / "cgroup.controllers").split()
    except OSError:
        return ()
    return tuple(c for c in WANTED if c in offered)


@functools.cache
def detect_cgroups() -> Cgroups:
    """This process's cgroups, detected once (``GATEWAY_CGROUPS=off``: none)."""
    if os.environ.get("GATEWAY_CGROUPS", "").strip().lower() in ("0", "off", "false", "no"):
        return Cgroups([], "GATEWAY_CGROUPS=off")
    try:
        mountinfo = _read(Path("/proc/self/mountinfo"))
        membership = _read(Path("/proc/self/cgroup"))
    except OSError:
        return Cgroups([], "no /proc/self/cgroup (not Linux, or /proc not mounted)")
    return parse_cgroups(mountinfo, membership)


def cleanup_cgroups(within: float = 1.0) -> None:
    """Remove this gateway's groups now, if it made any: at the end of a command, once its
    processes were killed (a CLI that leaves with ``os._exit`` runs no ``atexit``); a
    process killed a moment ago is given ``within`` seconds to be gone."""
    if detect_cgroups.cache_info().currsize:
        detect_cgroups().cleanup(within)
