"""Who wins a name clash first: the packages the user prefers (``gateway prefer``), read
from the state store and handed to the registry with the load order (docs/architecture.md,
"Name clashes"). A preferred package wins over every other owner of the name, the first
preferred over the later ones; the rest keep install order and their ecosystems' rules.

An extension discovered in a workspace or the user's folders is preferred by its own id, as
it is granted: ``pi:NAME`` and ``openclaw:ID`` own their names as such, ``nimlet:NAME`` (an
``extension.json`` extension) as its manifest's name. Where it is not found (another
workspace) the preference stays and says nothing: discovery is per workspace."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from gateway.base import Diagnostic, did_you_mean
from gateway.host._codes import PACKAGE_PREFERRED_NOT_INSTALLED
from gateway.host._discovered_ids import discovered_owner
from gateway.host._own_entries import calls_owners
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = ["clash_preference"]


def clash_preference(
    home: Path, installed: Collection[str], preferred: Sequence[str] | None = None
) -> tuple[dict[str, int], list[Diagnostic]]:
    """Owner → strength (higher wins) for every registry owner of each preferred installed
    package (its process's, its per-call tools', its prompt commands') and discovered
    extension, and a diagnostic for each preferred package id that is not installed.
    ``preferred``: the order as the caller read it (``StateStore.preferred``), else read
    from the store now. Blocking."""
    if preferred is None:
        if not (home / STATE_FILE).exists():
            return {}, []
        try:
            with StateStore.open(home) as store:
                preferred = store.preferred()
        except StoreError:
            return {}, []  # the load says the store is unusable already (``store.unusable``)
    strengths: dict[str, int] = {}
    said: list[Diagnostic] = []
    for place, package_id in enumerate(preferred):
        extension = discovered_owner(package_id) if package_id not in installed else None
        if extension is not None:
            strengths[extension] = len(preferred) - place
            continue
        if package_id not in installed:
            said.append(
                PACKAGE_PREFERRED_NOT_INSTALLED(
                    f"{package_id} is preferred in name clashes but not installed"
                    f"{did_you_mean(package_id, installed)}",
                    package=package_id,
                )
            )
            continue
        for owner in (package_id, *calls_owners(package_id)):
            strengths[owner] = len(preferred) - place
    return strengths, said
