"""The egress proxy of one gateway process: a daemon thread running an event loop of its
own (so it serves children started from synchronous code and from any event loop alike),
given each child's listener (``_namespaces``) with the child's grants. It serves a listener
until that child exits (its pidfd becomes readable), then closes it and every connection
made through it.

A refusal is a ``sandbox.network_denied`` diagnostic handed to the ``report`` given with
the listener — once per host, port and reason — run on the event loop that started the
child when there is one, since diagnostics belong to it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import SocketListener

from gateway.base import Diagnostic
from gateway.sandbox import EGRESS_UPSTREAM, NETWORK_DENIED
from gateway.sandbox.egress._connect import Resolver, system_resolver
from gateway.sandbox.egress._proxy import Denial, Grant, handle_client
from gateway.sandbox.egress._upstream import UpstreamConfig, upstream_from_environment

__all__ = ["EgressService", "Report", "denial_diagnostic", "egress_service"]

Report = Callable[[Diagnostic], object]


def denial_diagnostic(denial: Denial) -> Diagnostic:
    host = f"[{denial.host}]" if ":" in denial.host else denial.host
    return NETWORK_DENIED(
        f"{denial.label}: the sandbox refused a connection to {host}:{denial.port}: "
        f"{denial.reason}",
        package=denial.label,
        hint=f"gateway permissions {denial.label} network:{host}",
    )


class EgressService:
    def __init__(
        self, upstream: UpstreamConfig | None = None, resolve: Resolver = system_resolver
    ) -> None:
        self.upstream = upstream if upstream is not None else upstream_from_environment(os.environ)
        self._resolve = resolve
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._lock = threading.Lock()
        self._told_upstream = False

    def _start(self) -> anyio.from_thread.BlockingPortal:
        with self._lock:
            if self._portal is not None:
                return self._portal
            ready = threading.Event()
            found: list[anyio.from_thread.BlockingPortal] = []

            async def main() -> None:
                async with anyio.from_thread.BlockingPortal() as portal:
                    found.append(portal)
                    ready.set()
                    await portal.sleep_until_stopped()

            thread = threading.Thread(
                target=anyio.run, args=(main,), name="gateway-egress", daemon=True
            )
            thread.start()
            ready.wait()
            self._portal = found[0]
            return self._portal

    def serve(self, listener: int, grant: Grant, pid: int, report: Report | None) -> None:
        """Serve ``listener`` (a listening socket's descriptor, now the service's) for the
        child ``pid`` with ``grant``, until the child exits."""
        sock = socket.socket(fileno=listener)
        sock.setblocking(False)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            sock.close()  # it is gone already: nothing to serve
            return
        try:
            token: Any = anyio.lowlevel.current_token()
        except RuntimeError:
            token = None  # started from synchronous code: report from the proxy's thread
        portal = self._start()
        portal.start_task_soon(self._serve, sock, grant, pidfd, self._reporter(report, token))

    def _reporter(self, report: Report | None, token: Any) -> Callable[[Diagnostic], Any]:
        async def deliver(diagnostic: Diagnostic) -> None:
            if report is None:
                return
            if token is None:
                report(diagnostic)
                return
            with contextlib.suppress(RuntimeError):  # its loop ended meanwhile
                await anyio.to_thread.run_sync(
                    functools.partial(anyio.from_thread.run_sync, report, diagnostic, token=token)
                )

        return deliver

    async def _serve(
        self,
        sock: socket.socket,
        grant: Grant,
        pidfd: int,
        deliver: Callable[[Diagnostic], Any],
    ) -> None:
        said: set[tuple[str, int, str]] = set()
        listener = await SocketListener.from_socket(sock)

        def deny(denial: Denial) -> None:
            key = (denial.host, denial.port, denial.reason)
            if key not in said:
                said.add(key)
                group.start_soon(deliver, denial_diagnostic(denial))

        try:
            async with anyio.create_task_group() as group:
                if self.upstream.problems and not self._told_upstream:
                    self._told_upstream = True
                    problems = "; ".join(self.upstream.problems)
                    group.start_soon(deliver, EGRESS_UPSTREAM(f"the user's proxy: {problems}"))
                group.start_soon(self._accept, listener, group, grant, deny)
                await anyio.wait_readable(pidfd)
                group.cancel_scope.cancel()
        finally:
            with contextlib.suppress(OSError):
                await listener.aclose()
            os.close(pidfd)

    async def _accept(
        self,
        listener: SocketListener,
        group: anyio.abc.TaskGroup,
        grant: Grant,
        deny: Callable[[Denial], None],
    ) -> None:
        while True:
            try:
                client = await listener.accept()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return
            group.start_soon(handle_client, client, grant, deny, self.upstream, self._resolve)


@functools.cache
def egress_service() -> EgressService:
    """The gateway process's egress proxy (its settings read from the environment once)."""
    return EgressService()
