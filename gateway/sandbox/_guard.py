"""Which names a confined child may not make, change or remove inside a writable folder:
the protected names (``_protected``) at any depth, whether they exist yet or not.

The read-only binds of ``_protected`` cover protected paths that exist when the child
starts, at the workspace's top. What they cannot cover is a name that does not exist yet
(``.git`` in a workspace without one, ``sub/.git`` with ``core.fsmonitor``, ``.envrc``
anywhere), nor one in a subfolder. A ``GuardPlan`` says, for each guarded folder (a
writable workspace), which paths are refused: any path beneath it with a protected name
among its components — unless the user reopened that protected path by name
(``workspace.write:PATH``) or it is the package's own folder, and then only for that path
and what is beneath it. A protected name beneath a reopened path is protected again.

Beneath a ``node_modules`` folder nothing is refused: npm writes its dependencies' own
``package.json``, ``Makefile`` and ``.github`` there, and it is npm's tree, not the user's.

The supervisor (``_supervisor``) asks ``refusal`` of every path a trapped call names, with
the path resolved as the kernel resolves it for the child; this module only decides.
"""

from __future__ import annotations

import os
import posixpath

TYPE_CHECKING = False  # the supervisor imports this module: no typing (_confining)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path
    from typing import Any

__all__ = ["GuardPlan", "guard_plan"]

_EXEMPT = "node_modules"


class GuardPlan:
    """Immutable (a value, compared and hashed by its fields). Not a dataclass: the
    supervisor, a Python started per guarded child, imports this module."""

    __slots__ = ("allowed", "names", "roots")

    roots: tuple[str, ...]
    """Guarded folders, absolute and resolved."""
    allowed: tuple[str, ...]
    """Protected paths reopened by name (and the package's own folder), absolute, resolved."""
    names: frozenset[str]
    """The protected names (default: ``_protected.PROTECTED_NAMES``)."""

    def __init__(
        self,
        roots: tuple[str, ...],
        allowed: tuple[str, ...] = (),
        names: frozenset[str] | None = None,
    ) -> None:
        if names is None:
            from gateway.sandbox._protected import PROTECTED_NAMES

            names = frozenset(PROTECTED_NAMES)
        object.__setattr__(self, "roots", tuple(roots))
        object.__setattr__(self, "allowed", tuple(allowed))
        object.__setattr__(self, "names", frozenset(names))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GuardPlan is immutable: cannot set {name}")

    def _fields(self) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]:
        return self.roots, self.allowed, self.names

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GuardPlan) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"GuardPlan(roots={self.roots!r}, allowed={self.allowed!r}, names={self.names!r})"

    def replace(self, *, allowed: tuple[str, ...]) -> GuardPlan:
        """The same plan with other ``allowed`` paths."""
        return GuardPlan(self.roots, allowed, self.names)

    def root_of(self, path: str) -> str | None:
        """The guarded folder ``path`` (absolute, normalised) is in, or None."""
        for root in self.roots:
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return root
        return None

    def refusal(self, path: str) -> str | None:
        """The protected name that refuses a change to ``path`` (absolute, resolved as the
        child would reach it), or None when the change is allowed."""
        path = posixpath.normpath(path)
        root = self.root_of(path)
        if root is None:
            return None
        parts = _parts(path, root)
        covering = [
            len(_parts(a, root)) for a in self.allowed if _beneath(path, a) and _beneath(a, root)
        ]
        for index, part in enumerate(parts):
            if part == _EXEMPT:
                return None
            if part in self.names and not any(depth > index for depth in covering):
                return "/".join(parts[: index + 1])
        return None

    def link_target_leaves(self, link: str, target: str) -> bool:
        """Whether a symlink made at ``link`` (absolute, resolved folder) pointing at
        ``target`` (as written) reaches outside the guarded folder it is made in: a link
        from the workspace to a folder elsewhere that holds ``.git`` or ``.envrc`` would
        plant them where the user works without making either name there."""
        root = self.root_of(link)
        if root is None:
            return False
        joined = (
            target if target.startswith("/") else posixpath.join(posixpath.dirname(link), target)
        )
        return self.root_of(posixpath.normpath(joined)) != root

    def to_json(self) -> dict[str, Any]:
        return {
            "roots": list(self.roots),
            "allowed": list(self.allowed),
            "names": sorted(self.names),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GuardPlan:
        return cls(
            roots=tuple(str(p) for p in data.get("roots", ())),
            allowed=tuple(str(p) for p in data.get("allowed", ())),
            names=frozenset(str(n) for n in data["names"]) if "names" in data else None,
        )


def _beneath(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _parts(path: str, root: str) -> list[str]:
    rest = path[len(root) :].strip("/")
    return rest.split("/") if rest else []


def guard_plan(
    roots: Iterable[Path], reopened: Iterable[str] = (), own: Path | None = None
) -> GuardPlan | None:
    """The plan for writable ``roots`` (workspaces), ``reopened`` protected paths relative
    to each (``reopened_names``), and the package's own folder; None without roots."""
    real_roots = tuple(dict.fromkeys(os.path.realpath(r) for r in roots))
    if not real_roots:
        return None
    allowed = [posixpath.normpath(posixpath.join(r, name)) for r in real_roots for name in reopened]
    if own is not None:
        allowed.append(os.path.realpath(own))
    return GuardPlan(real_roots, tuple(dict.fromkeys(allowed)))
