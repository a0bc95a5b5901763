"""Workspace trust: whether a project's own extensions, tools, skills and prompts may load.

Persisted in the state store under ``GATEWAY_HOME``; a folder inherits the decision of its
nearest recorded ancestor, as nimlet's trust file does. A store that cannot be used is a
diagnostic, never a reason to overwrite it: the workspace then counts as untrusted.
"""

from __future__ import annotations

from pathlib import Path

from gateway.base import Diagnostic
from gateway.packages import _codes
from gateway.store import STATE_FILE, StateStore, StoreError

__all__ = ["StoreError", "is_workspace_trusted", "set_workspace_trust"]


def is_workspace_trusted(home: Path, workspace: Path) -> tuple[bool, Diagnostic | None]:
    if not (home / STATE_FILE).exists():
        return False, None  # Reading must not create the store.
    try:
        with StateStore.open(home) as store:
            return store.is_workspace_trusted(workspace.resolve()), None
    except StoreError as error:
        return False, _codes.STORE_UNUSABLE(f"workspace trust not read: {error}")


def set_workspace_trust(home: Path, workspace: Path, trusted: bool) -> None:
    """Raises ``StoreError`` when the store cannot be used."""
    with StateStore.open(home) as store:
        store.trust_workspace(workspace.resolve(), trusted)
