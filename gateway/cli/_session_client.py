"""The client side of the warm session: ``gateway list``, ``call`` and ``command`` sent to
the workspace's session (started on first use), their output streamed back as the
session writes it (docs/session.md).

A command the session cannot take runs one-shot, as before: sessions off (or not asked for
off a terminal), the session busy with another command, or — with a ``session.unreachable``
diagnostic — a session that could not be started, reached or trusted (its folder not
private, its peer another user). Nothing here imports the host.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from gateway.cli._session_paths import (
    SessionPlace,
    SessionRefused,
    address,
    peer_uid,
    run_folder,
    session_key,
    session_wanted,
)

__all__ = ["Fallback", "request_of", "run_in_session"]

_READY_TIMEOUT = 30.0
"""Seconds a new session may take to listen (it loads afterwards, while the first command
waits for it)."""
_FRAME_LIMIT = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Fallback:
    """Run the command one-shot; ``why``: the session could not be used (a diagnostic's
    message), None when that is no problem (off, busy)."""

    why: str | None = None


def request_of(args: argparse.Namespace) -> dict[str, Any]:
    """What the session needs of a parsed ``list``/``call``/``command``: every argument
    as the command line gave it, the workspace made absolute, and the terminal's width."""
    fields = {k: v for k, v in vars(args).items() if isinstance(v, str | bool | list | None)}
    fields["workspace"] = str(Path(args.workspace).resolve())
    columns = shutil.get_terminal_size((100, 24)).columns
    return {"kind": "run", "args": fields, "columns": columns, "tty": sys.stdout.isatty()}


def _interactive() -> bool:
    """Someone reads this command's output on a terminal (stdout, or stderr past a pipe)."""
    return any(stream.isatty() for stream in (sys.stdout, sys.stderr) if stream is not None)


def run_in_session(args: argparse.Namespace, home: Path) -> int | Fallback:
    """The command's exit code once the session ran it, or ``Fallback``."""
    if not session_wanted(os.environ, _interactive()) or not hasattr(socket, "SO_PEERCRED"):
        return Fallback()  # off; or no way to tell who serves a socket: no session
    workspace = Path(args.workspace).resolve()
    try:
        place = SessionPlace(
            run_folder(home), session_key(workspace, args.trust, args.plan, os.environ)
        )
        connection = _reach(place, workspace, [args.trust, args.plan])
    except SessionRefused as refused:
        return Fallback(str(refused))
    with connection:
        try:
            connection.sendall(json.dumps(request_of(args)).encode() + b"\n")
        except OSError as error:
            return Fallback(f"the session did not take the command ({error})")
        try:
            return _exchange(connection)
        except KeyboardInterrupt:
            return 130  # closing the connection cancels the command in the session
        except (OSError, ValueError) as error:
            # It may have run part of the command: running it again could do it twice.
            print(f"gateway: error: the session ended before answering ({error})", file=sys.stderr)
            return 1


def connect(place: SessionPlace) -> socket.socket | None:
    """A connection to a live session of this user's, or None when none listens."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        with address(place.socket) as where:
            sock.connect(where)
    except OSError:
        sock.close()
        return None
    if peer_uid(sock) != os.getuid():
        sock.close()
        raise SessionRefused(f"{place.socket} is served by another user")
    return sock


def _reach(place: SessionPlace, workspace: Path, flags: list[bool]) -> socket.socket:
    found = connect(place)
    if found is not None:
        return found
    # One client starts the session; another one waiting here then finds it listening.
    with open(os.open(place.start, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)) as start:
        fcntl.flock(start, fcntl.LOCK_EX)
        found = connect(place)
        if found is None:
            _start(place, workspace, flags)
            found = connect(place)
    if found is None:
        raise SessionRefused("the session did not start (see gateway logs session)")
    return found


def _start(place: SessionPlace, workspace: Path, flags: list[bool]) -> None:
    """Start the session in the background and wait until it listens."""
    from gateway.base import private_dir

    logs = private_dir(place.folder.parent / "logs")
    ready, told = os.pipe()
    with open(os.open(logs / "session.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)) as log:
        try:
            subprocess.Popen(
                [sys.executable, "-m", "gateway.cli._session_server", place.key,
                 str(workspace), str(told), *("1" if flag else "0" for flag in flags)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                pass_fds=(told,), start_new_session=True, cwd=workspace,
            )  # fmt: skip
        except OSError as error:
            raise SessionRefused(f"the session did not start: {error}") from None
        finally:
            os.close(told)
    try:
        waited, _, _ = select.select([ready], [], [], _READY_TIMEOUT)
        if waited:
            os.read(ready, 1)  # a byte: listening; end of file: it exited (another won)
    finally:
        os.close(ready)


def _exchange(sock: socket.socket) -> int | Fallback:
    """Copy what the session writes to stdout and stderr; the command's exit code (or
    ``Fallback`` when the session declined it before running anything)."""
    from gateway.base import raw_stream

    streams: dict[str, TextIO] = {"out": raw_stream(sys.stdout), "err": raw_stream(sys.stderr)}
    with sock.makefile("rb") as replies:
        while True:
            line = replies.readline(_FRAME_LIMIT)
            if not line:
                raise ValueError("it closed the connection")
            frame = json.loads(line)
            if "exit" in frame:
                return int(frame["exit"])
            if "fallback" in frame:
                return Fallback(frame.get("why"))
            for name, stream in streams.items():
                text = frame.get(name)
                if isinstance(text, str):
                    stream.write(text)
                    if frame.get("flush"):
                        stream.flush()


def wait_gone(place: SessionPlace, timeout: float) -> bool:
    """Whether the session holding ``place`` ended within ``timeout`` seconds (its lock is
    free once its process is gone), for ``gateway session stop``."""
    try:
        lock = open(place.lock, "rb")  # noqa: SIM115 - closed below, after the waiter
    except OSError:
        return True
    with lock:
        waiter = threading.Thread(target=fcntl.flock, args=(lock, fcntl.LOCK_EX), daemon=True)
        waiter.start()
        waiter.join(timeout)
        return not waiter.is_alive()
