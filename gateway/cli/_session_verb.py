"""``gateway session status`` and ``gateway session stop``: the warm sessions of this
``GATEWAY_HOME`` (docs/session.md). Asking a session is a ``status`` or ``stop`` request on
its socket; a socket whose session is gone (its lock free) is stale and removed here."""

from __future__ import annotations

import argparse
import fcntl
import json
import sys
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._output import fail, print_json, table
from gateway.cli._session_client import connect, wait_gone
from gateway.cli._session_paths import SessionPlace, SessionRefused, run_folder

__all__ = ["run_session"]

_STOP_WAIT = 15.0


def _alive(place: SessionPlace) -> bool:
    """Whether a session holds ``place``'s lock (if none does, its files are left over)."""
    try:
        with open(place.lock, "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    return False


def _ask(place: SessionPlace, kind: str) -> dict[str, Any] | None:
    try:
        sock = connect(place)
    except SessionRefused:
        return None
    if sock is None:
        return None
    with sock, sock.makefile("rb") as replies:
        sock.sendall(json.dumps({"kind": kind}).encode() + b"\n")
        line = replies.readline(1024 * 1024)
    try:
        answer = json.loads(line) if line else None
    except ValueError:
        return None
    return answer if isinstance(answer, dict) else None


def _sessions(folder: Path) -> list[tuple[SessionPlace, dict[str, Any] | None]]:
    """Each live session and what it says of itself; the files of dead ones removed."""
    found = []
    for lock in sorted(folder.glob("*.lock")):
        place = SessionPlace(folder, lock.stem)
        if not _alive(place):
            for path in (place.socket, place.info, place.start, place.lock):
                with suppress(OSError):
                    path.unlink()
            continue
        found.append((place, _ask(place, "status")))
    return found


def _when(seconds: float | None) -> str:
    return "-" if seconds is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def run_session(args: argparse.Namespace, config: GatewayConfig) -> int:
    try:
        folder = run_folder(config.home)
    except SessionRefused as refused:
        fail(str(refused))
        return 1
    sessions = _sessions(folder)
    if args.action == "status":
        return _status(args, sessions)
    workspace = None if args.all else Path(args.workspace or ".").resolve()
    stopped = []
    for place, info in sessions:
        if workspace is not None and (info or {}).get("workspace") != str(workspace):
            continue
        if _ask(place, "stop") is not None and wait_gone(place, _STOP_WAIT):
            stopped.append((info or {}).get("workspace") or place.key)
    if args.json:
        print_json({"stopped": stopped})
    elif stopped:
        for where in stopped:
            print(f"stopped the session of {where}")
    else:
        print("no session to stop" + ("" if workspace is None else f" for {workspace}"))
    return 0


def _status(args: argparse.Namespace, sessions: list[tuple[SessionPlace, Any]]) -> int:
    infos = [info or {"key": place.key, "unanswered": True} for place, info in sessions]
    if args.json:
        print_json({"sessions": infos})
        return 0
    rows = [
        (
            str(info.get("pid", "?")),
            _when(info.get("started")),
            _when(info.get("last_used")),
            str(info.get("served", "?")),
            str(len(info.get("processes", []))),
            str(info.get("workspace", "(not answering)"))
            + (" (trusted for its runs)" if info.get("trust") else "")
            + (" (plan mode)" if info.get("plan") else ""),
        )
        for info in infos
    ]
    headers = ("pid", "started", "last used", "commands", "processes", "workspace")
    table("Sessions", headers, rows, sys.stdout)
    return 0
