"""The warm session: one process per workspace (and what decides its load) that keeps a
gateway open and runs ``gateway list``, ``call`` and ``command`` for the CLI, so a command
costs what its own work costs instead of starting every runtime its hooks need
(docs/session.md).

Started by the first command that finds none (``gateway.cli._session_client``), as
``python -m gateway.cli._session_server KEY WORKSPACE READY_FD TRUST PLAN``. It holds
``<key>.lock`` for its whole life (a second one exits at once), removes a stale socket,
listens on ``<key>.sock`` (0600, in the 0700 run folder), says so on READY_FD, and ends
after ``GATEWAY_SESSION_IDLE`` seconds without a command, on ``gateway session stop``, or on
SIGTERM/SIGINT/SIGHUP — stopping every process it started. A connection from another user
(``SO_PEERCRED``) is closed unanswered. Commands run one at a time; one that arrives while
another runs is declined and runs one-shot in its client.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import sys
import time
import traceback
from contextlib import suppress
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import SocketAttribute, SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from gateway.base import GatewayConfig
from gateway.cli._session_paths import SessionPlace, address, idle_seconds, peer_uid, run_folder
from gateway.cli._session_run import Holder, run_command
from gateway.sandbox import (
    become_subreaper,
    cleanup_cgroups,
    kill_descendants,
    make_undumpable,
    reap_adopted,
)

__all__ = ["main"]

_REQUEST_LIMIT = 1024 * 1024


def _log(message: str) -> None:
    """A line in ``logs/session.log`` (the process's own stderr: a command's is its client's)."""
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} session {os.getpid()}: {message}"
    print(line, file=sys.__stderr__, flush=True)


class Session:
    """One session's listener, its gateway (``Holder``) and its idle clock."""

    def __init__(self, place: SessionPlace, holder: Holder, idle: float) -> None:
        self.place = place
        self.holder = holder
        self.idle = idle
        self.running = anyio.Lock()
        self.deadline = time.monotonic() + idle
        self.served = 0
        self.started = time.time()
        self.last_used: float | None = None
        self.stop = anyio.Event()

    async def serve(self, sock: socket.socket) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(self.holder.run)
            group.start_soon(self._idle)
            group.start_soon(self._signals)
            listener = await anyio.abc.SocketListener.from_socket(sock)
            group.start_soon(listener.serve, self._connection, group)
            await self.stop.wait()
            await self.holder.close()
            with anyio.move_on_after(60):  # its processes stop in bounded steps
                await self.holder.closed.wait()
            group.cancel_scope.cancel()

    async def _idle(self) -> None:
        """End once ``idle`` seconds pass without a command (never while one runs)."""
        while True:
            await anyio.sleep(max(self.deadline - time.monotonic(), 0.0))
            if time.monotonic() >= self.deadline and not self.running.locked():
                _log("idle: ending")
                self.stop.set()
                return

    async def _signals(self) -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as got:
            async for received in got:
                _log(f"signal {received}: ending")
                self.stop.set()
                return

    async def _connection(self, stream: SocketStream) -> None:
        """One client; whatever goes wrong with it is logged and ends it alone."""
        try:
            await self._answer(stream)
        except Exception:
            _log("a command failed:\n" + traceback.format_exc())

    async def _answer(self, stream: SocketStream) -> None:
        async with stream:
            if peer_uid(stream.extra(SocketAttribute.raw_socket)) != os.getuid():
                _log("a connection from another user: closed")
                return
            reader = BufferedByteReceiveStream(stream)
            try:
                request = json.loads(await reader.receive_until(b"\n", _REQUEST_LIMIT))
            except (anyio.EndOfStream, anyio.IncompleteRead, anyio.DelimiterNotFound, ValueError):
                return
            kind = request.get("kind") if isinstance(request, dict) else None
            if kind == "status":
                await stream.send(json.dumps(self._status()).encode() + b"\n")
            elif kind == "stop":
                _log("asked to stop")
                await stream.send(b'{"stopping": true}\n')
                self.stop.set()
            elif kind == "run":
                await self._run(request, stream, reader)

    async def _run(
        self, request: dict[str, Any], stream: SocketStream, reader: BufferedByteReceiveStream
    ) -> None:
        try:
            self.running.acquire_nowait()
        except anyio.WouldBlock:  # another command runs: this one runs one-shot
            await stream.send(b'{"fallback": true}\n')
            return
        try:
            await run_command(self.holder, request, stream, reader)
            self.served += 1
        finally:
            self.last_used = time.time()
            self.deadline = time.monotonic() + self.idle
            self.running.release()

    def _status(self) -> dict[str, Any]:
        gateway = self.holder.gateway
        return {
            "pid": os.getpid(),
            "key": self.place.key,
            "workspace": str(self.holder.workspace),
            "trust": self.holder.trust,
            "plan": self.holder.plan,
            "started": self.started,
            "last_used": self.last_used,
            "served": self.served,
            "idle_seconds": self.idle,
            "loaded": gateway is not None,
            "loads": self.holder.loads,
            "processes": [p.name for p in gateway.processes] if gateway is not None else [],
            "running": self.running.locked(),
        }


def _listen(place: SessionPlace) -> socket.socket:
    """The session's socket, 0600 from the start (umask), a stale one removed first."""
    with suppress(FileNotFoundError):
        place.socket.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    mask = os.umask(0o177)
    try:
        with address(place.socket) as where:
            sock.bind(where)
    finally:
        os.umask(mask)
    os.chmod(place.socket, 0o600)
    sock.listen(16)
    return sock


def main(argv: list[str]) -> int:
    key, workspace, ready, trust, plan = argv

    make_undumpable()
    config = GatewayConfig(watch_inputs=True)
    place = SessionPlace(run_folder(config.home), key)
    # Held (open and locked) for the session's whole life: closed when the process ends.
    lock = open(os.open(place.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600), "rb")  # noqa: SIM115
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0  # another session of this key lives: the client connects to it
    sock = _listen(place)
    holder = Holder(Path(workspace), trust == "1", plan == "1", config, _log)
    session = Session(place, holder, idle_seconds(os.environ))
    place.info.write_text(json.dumps(session._status()), encoding="utf-8")
    os.chmod(place.info, 0o600)
    os.write(int(ready), b"1")
    os.close(int(ready))
    _log(f"serving {workspace} on {place.socket}")
    become_subreaper()
    try:
        anyio.run(session.serve, sock)
    finally:
        for path in (place.socket, place.info):
            with suppress(OSError):
                path.unlink()
        sock.close()
        kill_descendants(exclude=set())
        reap_adopted(())
        cleanup_cgroups()
        _log("ended")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
