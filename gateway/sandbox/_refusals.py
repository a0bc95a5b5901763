"""The gateway's side of the guard's report socket (``_supervisor``): each line a refusal,
turned into a ``sandbox.protected_name`` diagnostic for whoever started the child.

A thread reads it, blocking, until the supervisor closes its end (it exits with the
program); what the package writes never reaches this socket — the program does not hold
it. Lines are read as hostile all the same: bounded, and anything malformed is dropped.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable
from typing import Any

import anyio.from_thread
import anyio.lowlevel

from gateway.base import Diagnostic
from gateway.sandbox._codes import PROTECTED_NAME
from gateway.sandbox._emulate import LINK_OUTSIDE
from gateway.sandbox._protected import PROTECTED_NAMES

__all__ = ["refusal_diagnostic", "settle_refusals", "watch_refusals"]

_LINE_LIMIT = 16384
_watchers: dict[int, threading.Thread] = {}
_lock = threading.Lock()


def refusal_diagnostic(label: str, report: dict[str, Any], workspace: str | None) -> Diagnostic:
    action, path, name = (str(report.get(k, "")) for k in ("action", "path", "name"))
    shown = path
    if workspace and path.startswith(workspace.rstrip("/") + "/"):
        shown = path[len(workspace.rstrip("/")) + 1 :]
    if action == LINK_OUTSIDE:
        return PROTECTED_NAME(
            f"{label}: the sandbox refused a symlink at {shown} to {name}, outside the "
            "workspace: a link there would bring another folder's .git or .envrc into it",
            package=label,
        )
    why = PROTECTED_NAMES.get(name.rsplit("/", 1)[-1], "a protected name")
    return PROTECTED_NAME(
        f"{label}: the sandbox refused to {action} {shown}: {name} is protected ({why})",
        package=label,
        hint=f"gateway permissions {label} workspace.write:{name}",
    )


def watch_refusals(
    sock: socket.socket,
    pid: int,
    label: str,
    workspace: str | None,
    report: Callable[[Diagnostic], object] | None,
) -> None:
    """Read ``sock`` on a thread of its own; each refusal of the child ``pid`` goes to
    ``report`` (on the caller's event loop when called from one)."""
    try:
        token: Any = anyio.lowlevel.current_token()
    except RuntimeError:
        token = None

    def deliver(diagnostic: Diagnostic) -> None:
        if report is None:
            return
        if token is None:
            report(diagnostic)
            return
        with contextlib.suppress(RuntimeError):  # its loop ended meanwhile
            anyio.from_thread.run_sync(report, diagnostic, token=token)

    def read() -> None:
        try:
            with sock, sock.makefile("rb") as lines:
                for line in iter(lambda: lines.readline(_LINE_LIMIT), b""):
                    try:
                        data = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(data, dict):
                        deliver(refusal_diagnostic(label, data, workspace))
        finally:
            with _lock:
                if _watchers.get(pid) is threading.current_thread():
                    del _watchers[pid]

    thread = threading.Thread(target=read, name=f"gateway-guard-{label}", daemon=True)
    with _lock:
        _watchers[pid] = thread
    thread.start()


def settle_refusals(pid: int, within: float = 5.0) -> None:
    """Wait (bounded) until every refusal of the child ``pid`` — which has exited — has been
    reported: its supervisor wrote each one before answering the call, and closes the
    socket as it exits. Called from a thread (it blocks)."""
    with _lock:
        thread = _watchers.get(pid)
    if thread is not None and thread is not threading.current_thread():
        thread.join(within)
