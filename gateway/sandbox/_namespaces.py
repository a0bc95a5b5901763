"""The namespaces a child starts in, made before Landlock (which forbids mount changes):

- a **mount namespace** in which the protected paths of a writable workspace are bound
  read-only over themselves (``_protected``) and the package's private temp folder is bound
  over ``/tmp`` and ``/var/tmp`` (as systemd's ``PrivateTmp=``): a write to ``/tmp/x`` lands
  in the package's own folder. Whatever the policy names beneath those folders (a workspace
  or ``GATEWAY_HOME`` in ``/tmp``) is bound back at its own path;
- a **network namespace** (for network grants by destination) whose only interface is its
  own loopback, on which a listening socket stands for the gateway's egress proxy
  (``egress``): the child's sockets reach nothing else, and the gateway accepts what they
  send from outside the namespace, through that socket.

With ``CAP_SYS_ADMIN`` the confining thread makes them (the child inherits them); without
it the trampoline does, in a user namespace of its own (``_trampoline``). ``NamespacePlan``
is what both are given (as JSON to the trampoline).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.sandbox import _mounts

__all__ = ["TMP_FOLDERS", "NamespacePlan", "enter_namespaces", "private_tmp_plan"]

TMP_FOLDERS = (Path("/tmp"), Path("/var/tmp"))
"""Where a private temp folder is bound."""


@dataclass(frozen=True, slots=True)
class NamespacePlan:
    read_only: tuple[Path, ...] = ()
    """Bound read-only over themselves."""
    reopened: tuple[Path, ...] = ()
    """Bound writable again on top of those."""
    private_tmp: Path | None = None
    """Bound over ``covered``."""
    covered: tuple[Path, ...] = ()
    """The temp folders ``private_tmp`` is bound over (those no policy path holds)."""
    keep: tuple[Path, ...] = ()
    """Paths beneath ``covered`` the policy names: bound back where they were."""
    network: bool = False
    """A network namespace of its own, with the egress listener on its loopback."""

    @property
    def mounts(self) -> bool:
        return _mounts.has_mounts(self.to_json())

    def to_json(self) -> dict[str, Any]:
        return {
            "read_only": [str(p) for p in self.read_only],
            "reopened": [str(p) for p in self.reopened],
            "private_tmp": str(self.private_tmp) if self.private_tmp is not None else None,
            "covered": [str(p) for p in self.covered],
            "keep": [str(p) for p in self.keep],
            "network": self.network,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NamespacePlan:
        private = data.get("private_tmp")
        return cls(
            read_only=tuple(Path(p) for p in data.get("read_only", ())),
            reopened=tuple(Path(p) for p in data.get("reopened", ())),
            private_tmp=Path(private) if private else None,
            covered=tuple(Path(p) for p in data.get("covered", ())),
            keep=tuple(Path(p) for p in data.get("keep", ())),
            network=bool(data.get("network")),
        )


def _beneath(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or inside it; both absolute and normalised (``abspath``)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _inside(path: str, folder: str) -> bool:
    """``path`` is strictly inside ``folder`` (``folder in Path(path).parents``)."""
    return path != folder and _beneath(path, folder)


def private_tmp_plan(
    private: Path | None, named: Iterable[Path], writable: Iterable[Path]
) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(the temp folders ``private`` goes over, the paths to bind back) for a policy that
    names ``named``, of which ``writable`` may be written.

    Landlock's rules follow the path upward through a mount to the folder it is mounted
    on, so whatever is bound back inside the private folder inherits its write right. A
    temp folder is therefore covered only when everything named beneath it may be written
    anyway (the package's own folders); a temp folder holding anything else the policy
    names — a workspace in ``/tmp``, a package installed there, ``/`` granted — stays as
    it is, and writes there are refused as before.

    Run at every confined start, over the ~50 paths of a policy: compared as text (through
    ``Path.parents`` it was ~4 ms of CPU per start, most of ``spawn_confined``'s own)."""
    if private is None:
        return (), ()
    paths = {os.path.abspath(p) for p in named}
    open_paths = [os.path.abspath(p) for p in writable]
    covered: list[str] = []
    for candidate in TMP_FOLDERS:
        if not candidate.is_dir() or candidate.is_symlink():
            continue
        folder = str(candidate)
        inside = [p for p in paths if _beneath(folder, p) or _inside(p, folder)]
        if all(_inside(p, folder) and any(_beneath(p, w) for w in open_paths) for p in inside):
            covered.append(folder)
    keep: list[str] = []
    for path in sorted(paths, key=lambda p: (p.rstrip("/").count("/"), p)):  # shallowest first
        if not any(_inside(path, folder) for folder in covered):
            continue
        if not any(_beneath(path, kept) for kept in keep):
            keep.append(path)
    return tuple(Path(f) for f in covered), tuple(Path(p) for p in keep)


def enter_namespaces(plan: NamespacePlan, *, user_namespace: bool = False) -> int | None:
    """On the calling thread, which must have its own ``fs_struct`` (``unshare(CLONE_FS)``):
    the namespaces of ``plan`` (``_mounts.enter_namespaces``, which the trampoline calls
    with the plan's JSON). Returns the egress listener's descriptor when ``plan.network``.
    Raises ``OSError``."""
    return _mounts.enter_namespaces(plan.to_json(), user_namespace=user_namespace)
