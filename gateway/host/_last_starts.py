"""What a load leaves for the commands that start nothing: for each package started since
the last stop, what the sandbox refused it and whether its code loaded; and the at-most-once
calls a crashed gateway left unresolved, reported at each load."""

from __future__ import annotations

from pathlib import Path

from gateway.base import Diagnostic
from gateway.host._call_tools import interrupted_calls
from gateway.host._state import GatewayState
from gateway.packages import remember_denials, remember_start
from gateway.store import StoreError

__all__ = ["remember_last_starts", "unresolved_calls"]


def remember_last_starts(state: GatewayState) -> None:
    """For each installed package started since the last stop: what the sandbox refused
    it (its stderr is drained by now), and whether its code loaded."""
    started, state.started = state.started, set()
    failures, state.load_failures = state.load_failures, {}
    home = state.config.home
    for status in state.packages:
        if status.id in started:
            granted = status.package.granted
            remember_denials(home, status.id, granted, state.diagnostics.items)
            content = status.package.record.content_hash
            remember_start(home, status.id, content, failures.get(status.id))


def unresolved_calls(home: Path) -> list[Diagnostic]:
    """At-most-once calls a crashed gateway left unresolved."""
    try:
        return interrupted_calls(home)
    except StoreError:
        return []  # the packages' evaluation reports an unusable store
