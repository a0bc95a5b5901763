"""``/metrics``: the Prometheus text, never open by default.

``gateway serve --mcp --metrics WHERE``:

- ``[HOST:]PORT``: a listener of its own, serving ``/metrics`` and nothing else, without a
  token (127.0.0.1 unless a host is given: whoever reaches the address reads the metrics,
  so choose it as you would a database port's — the pod network, a scrape-only interface);
- ``token`` (``--http`` only): ``/metrics`` on the MCP address, answered only to a bearer
  token made with ``gateway token create NAME --metrics``, which opens nothing else.

Without ``--metrics`` there is no ``/metrics`` and nothing is counted for it.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Callable, Iterator

import uvicorn
from starlette.types import Receive, Scope, Send

__all__ = ["METRICS_PATH", "MetricsApp", "respond_metrics", "serve_metrics"]

METRICS_PATH = "/metrics"


async def respond_metrics(send: Send, render: Callable[[], bytes], content_type: str) -> None:
    body = render()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class MetricsApp:
    """The ASGI app of the metrics listener: GET ``/metrics``, 404 for anything else."""

    def __init__(self, render: Callable[[], bytes], content_type: str) -> None:
        self._render, self._type = render, content_type

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope.get("path") == METRICS_PATH and scope.get("method") in ("GET", "HEAD"):
            await respond_metrics(send, self._render, self._type)
            return
        body = b"not found; the metrics are at /metrics\n"
        await send({"type": "http.response.start", "status": 404,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode())]})  # fmt: skip
        await send({"type": "http.response.body", "body": body})


class _Quiet(uvicorn.Server):
    """uvicorn without its own signal handlers: the server around it stops it."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_metrics(app: MetricsApp, sock: socket.socket) -> None:
    """Serve ``app`` on ``sock`` until cancelled."""
    config = uvicorn.Config(
        app, lifespan="off", log_config=None, log_level="warning", access_log=False,
        server_header=False,
    )  # fmt: skip
    server = _Quiet(config)
    try:
        await server.serve(sockets=[sock])
    finally:
        server.should_exit = True
