"""``install FOLDER#NAME``: the package a collection (a Claude Code or Codex marketplace) offers,
found by the adapter that reads the collection (``OffersPackages``), in the collection's
folder or fetched from where it says (git, npm) by the installer's own fetchers."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, Progress
from gateway.model import OfferedSource
from gateway.packages._adapters import NoAdapters, load_adapters, select_offered
from gateway.packages._sources import Fetched, SourceError, fetch, parse_source
from gateway.packages._tools import FetchError
from gateway.packages._verify import InstallLimits, VerifyError, verify_tree

__all__ = ["adapters_offered", "offered_package"]


def offered_package(
    source: Any,
    fetched: Fetched,
    staging: Path,
    home: Path,
    limits: InstallLimits,
    progress: Progress,
) -> Fetched:
    """The package ``source.member`` names inside the fetched collection; the fetched
    folder itself when the source names none. Raises ``SourceError`` (with the
    collection's diagnostics) when it cannot be had; runs nothing of it."""
    if source.member is None:
        return fetched
    chosen = adapters_offered(fetched.root, source.member)
    subject = f"cannot install {source.describe()}"
    if chosen is None:
        raise SourceError(
            f"{subject}: #{source.member} names a package of a marketplace, and "
            f"{source.location} is none (no .claude-plugin/marketplace.json or "
            ".agents/plugins/marketplace.json)"
        )
    if isinstance(chosen, list):
        staged, shown_as = str(fetched.root), source.describe()
        shown = [
            dataclasses.replace(d, message=d.message.replace(staged, shown_as)) for d in chosen
        ]
        raise SourceError(f"{subject}: {shown[0].message}", shown)
    if isinstance(chosen, Path):
        return dataclasses.replace(fetched, root=chosen, resolved=source.describe())
    where = f"{chosen.kind} {chosen.location}"
    try:
        target = staging / "offered"
        target.mkdir()
        inner = fetch(parse_source(chosen.location, chosen.kind), target, home=home,
                      limits=limits, progress=progress)  # fmt: skip
        verify_tree(inner.root, limits)
    except (FetchError, VerifyError, OSError) as error:
        raise SourceError(f"{subject}: {where}: {error}") from None
    return dataclasses.replace(inner, resolved=f"{where} {inner.resolved}")


def adapters_offered(
    root: Path, name: str | None
) -> Path | OfferedSource | list[Diagnostic] | None:
    try:
        adapters = load_adapters()
    except NoAdapters:
        return None
    return select_offered(adapters, root, name)
