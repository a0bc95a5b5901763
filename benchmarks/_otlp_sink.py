"""A stand-in OpenTelemetry Collector for the benchmarks: an OTLP/HTTP receiver on
127.0.0.1 that accepts every export (``/v1/traces``, ``/v1/metrics``) with 200 and counts
the requests and bytes, so that a traced server pays what it would pay a real collector
on the same machine (encoding and posting its batches), and nothing is kept."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Sink:
    def __init__(self) -> None:
        self.url = ""
        self.requests: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()


@contextmanager
def otlp_sink() -> Iterator[Sink]:
    sink = Sink()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length", "0"))
            self.rfile.read(size)
            sink.requests[self.path] += 1
            sink.bytes[self.path] += size
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    sink.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()
