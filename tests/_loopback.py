"""An HTTP server on this machine's loopback for one test: ``loopback_http(handler)`` serves
the ``BaseHTTPRequestHandler`` class in a thread and yields its port."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["loopback_http"]


@contextmanager
def loopback_http(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_port
    finally:
        httpd.shutdown()
        httpd.server_close()
