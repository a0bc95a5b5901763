"""``SandboxPolicy``: what one confined child may touch.

Plain data, built by ``_builder`` from what a package declares and what the user granted,
enforced by ``_spawn``. Everything not listed is denied: a path not beneath a listed one,
a TCP port not listed (when ports are listed), a socket family not allowed, a signal or an
abstract socket outside the child's own sandbox.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gateway.sandbox._destinations import Destination
from gateway.sandbox._limits import ResourceLimits

__all__ = ["NetworkAccess", "Ports", "SandboxPolicy"]

_DEV = Path("/dev")

Ports = bool | frozenset[int]
"""True: every port; False: none; a set: those TCP ports only."""


def _ports(value: Ports) -> Ports:
    if isinstance(value, bool):
        return value
    ports = frozenset(value)
    if not all(isinstance(p, int) and 0 <= p <= 65535 for p in ports):
        raise ValueError(f"TCP ports must be integers 0..65535, not {sorted(ports)!r}")
    return ports


def _describe_ports(value: Ports) -> str:
    if value is True:
        return "any port"
    if not value:
        return "no port"
    return "port " + ",".join(str(p) for p in sorted(value))


@dataclass(frozen=True, slots=True)
class NetworkAccess:
    """TCP ``connect`` and ``bind``. Any network access also allows the inet socket
    families (so UDP, which Landlock cannot filter by port, follows the grant as a whole).

    With ``destinations``, the child runs in a network namespace of its own whose only way
    out is the gateway's egress proxy, which lets through connections to those hosts
    (``egress``); ``connect`` and ``bind`` are then what it may do inside that namespace."""

    connect: Ports = False
    bind: Ports = False
    destinations: tuple[Destination, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "connect", _ports(self.connect))
        object.__setattr__(self, "bind", _ports(self.bind))
        object.__setattr__(self, "destinations", tuple(sorted(set(self.destinations))))

    @classmethod
    def unrestricted(cls) -> NetworkAccess:
        return cls(connect=True, bind=True)

    @classmethod
    def to(cls, destinations: Iterable[Destination]) -> NetworkAccess:
        """Only ``destinations``, through the egress proxy (inside its own namespace, any
        port: nothing but its own loopback and the proxy is there)."""
        return cls(connect=True, bind=True, destinations=tuple(destinations))

    @property
    def any(self) -> bool:
        return bool(self.connect) or bool(self.bind)

    @property
    def wide(self) -> bool:
        """TCP and UDP to anywhere: the plain ``network`` grant."""
        return self.connect is True and self.bind is True and not self.destinations

    def describe(self) -> str:
        if self.destinations:
            shown = ", ".join(str(d) for d in self.destinations)
            return f"network to {shown} (through the gateway's proxy)"
        if not self.any:
            return "no network"
        if self.connect is True and self.bind is True:
            return "network (any host)"
        return f"connect {_describe_ports(self.connect)}, bind {_describe_ports(self.bind)}"


def _absolute(paths: Iterable[Path | str], what: str) -> tuple[Path, ...]:
    result: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_absolute():
            raise ValueError(f"sandbox {what} path {raw!s} is not absolute")
        if path not in result:
            result.append(path)
    return tuple(result)


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    read: tuple[Path, ...] = ()
    """Readable beneath (files and folder listings); nothing there may run."""
    execute: tuple[Path, ...] = ()
    """Readable and executable beneath: system and runtime folders, the package's own."""
    write: tuple[Path, ...] = ()
    """Readable and writable beneath (create, remove, rename inside); not executable."""
    network: NetworkAccess = field(default_factory=NetworkAccess)
    unix_sockets: bool = False
    """May create Unix sockets (and so connect to pathname and abstract ones)."""
    scope_signals: bool = True
    """Signals only to processes inside its own sandbox (Landlock ABI 6)."""
    scope_abstract_unix: bool = True
    """Abstract Unix sockets only to servers inside its own sandbox (Landlock ABI 6)."""
    drop_capabilities: bool = True
    """Start with no capabilities, even when the gateway runs as root."""
    anonymous_exec: bool = False
    """May make an anonymous file (``memfd_create``) it can execute: code it wrote, run
    without a folder a Landlock rule could deny. No package is granted it."""
    limits: ResourceLimits | None = field(default_factory=ResourceLimits)
    """Memory, processes, file size and CPU share (``_limits``); None: none at all."""
    read_only_within: tuple[Path, ...] = ()
    """Paths beneath a writable folder that stay read-only (``_protected``: git hooks,
    editor and CI configs in a writable workspace)."""
    reopened: tuple[Path, ...] = ()
    """Paths beneath those that the user made writable again, by name."""
    private_tmp: Path | None = None
    """Bound over ``/tmp`` and ``/var/tmp`` in the child's own mount namespace (its private
    temp folder, as systemd's ``PrivateTmp=``): a write to ``/tmp/x`` lands there."""
    guarded: tuple[Path, ...] = ()
    """Writable folders in which no protected name may be made, changed or removed, at
    any depth, whether it exists yet or not (``_guard``: a supervisor checks each call)."""
    guard_allowed: tuple[Path, ...] = ()
    """Protected paths inside ``guarded`` the user reopened by name, and the package's own
    folder."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "read_only_within", _absolute(self.read_only_within, "read"))
        object.__setattr__(self, "reopened", _absolute(self.reopened, "write"))
        object.__setattr__(self, "guarded", _absolute(self.guarded, "write"))
        object.__setattr__(self, "guard_allowed", _absolute(self.guard_allowed, "write"))
        object.__setattr__(self, "read", _absolute(self.read, "read"))
        object.__setattr__(self, "execute", _absolute(self.execute, "execute"))
        object.__setattr__(self, "write", _absolute(self.write, "write"))

    def allowing(
        self,
        *,
        read: Iterable[Path | str] = (),
        execute: Iterable[Path | str] = (),
        write: Iterable[Path | str] = (),
    ) -> SandboxPolicy:
        """A copy with more paths allowed."""
        return dataclasses.replace(
            self,
            read=(*self.read, *map(Path, read)),
            execute=(*self.execute, *map(Path, execute)),
            write=(*self.write, *map(Path, write)),
        )

    def summary(self) -> str:
        """One line: what the child may do beyond reading its runtime (device files such as
        /dev/null, writable for everyone, are left out)."""
        folders = [str(p) for p in self.write if p.parent != _DEV]
        parts = [f"write {', '.join(folders) or 'nothing'}"]
        parts.append(self.network.describe())
        if self.unix_sockets:
            parts.append("unix sockets")
        scoped = [
            name
            for name, on in (
                ("signals", self.scope_signals),
                ("abstract sockets", self.scope_abstract_unix),
            )
            if on
        ]
        parts.append(f"scoped {' and '.join(scoped)}" if scoped else "not scoped")
        if not self.drop_capabilities:
            parts.append("keeps capabilities")
        if self.anonymous_exec:
            parts.append("may execute anonymous files")
        if self.read_only_within:
            parts.append(f"read-only inside: {', '.join(p.name for p in self.read_only_within)}")
        if self.guarded:
            parts.append("protected names guarded at any depth")
        if self.private_tmp is not None:
            parts.append("a private /tmp")
        return "; ".join(parts)
