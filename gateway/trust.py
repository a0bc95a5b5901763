"""Workspace trust: whether a project's own extensions, tools, skills and prompts may load.

Persisted in the state store under ``GATEWAY_HOME``; a folder inherits the decision of its
nearest recorded ancestor, as nimlet's trust file does.
"""

from __future__ import annotations

from pathlib import Path

from .store import StateStore

__all__ = ["is_workspace_trusted", "set_workspace_trust"]


def is_workspace_trusted(home: Path, workspace: Path) -> bool:
    if not (home / "state.sqlite3").exists():
        return False  # Reading must not create the store.
    with StateStore.open(home) as store:
        return store.is_workspace_trusted(workspace.resolve())


def set_workspace_trust(home: Path, workspace: Path, trusted: bool) -> None:
    with StateStore.open(home) as store:
        store.trust_workspace(workspace.resolve(), trusted)
