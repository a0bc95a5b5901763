"""``bench_http.py`` section 4's probe in each server it starts (on ``PYTHONPATH`` there, with
``GATEWAY_BENCH_REPLY_CPU`` naming the file to write at exit): the CPU time of the server's
main thread (the event loop's) from the arrival of each ``POST /mcp`` to the write of the
response part that carries a ``tools/call`` result — what the server spends before the
client has its reply, whatever the machine's load; what it does after (a span's end, the
counts: ``telemetry.after_reply``) and in other threads (OpenTelemetry's export) is not in
it. Every server of the section has it, so it costs each the same."""

import atexit
import os
import time

import gateway.serve._http as http

_FOUND: list[float] = []
_SERVE = http.HttpFront.__call__


async def _probed(self, scope, receive, send):
    if scope.get("path") != "/mcp" or scope.get("method") != "POST":
        return await _SERVE(self, scope, receive, send)
    began = time.thread_time()

    async def sent(message):
        await send(message)
        body = message.get("body", b"") if message["type"] == "http.response.body" else b""
        if b'"result"' in body and b'"content"' in body:
            _FOUND.append(time.thread_time() - began)

    return await _SERVE(self, scope, receive, sent)


def _write() -> None:
    with open(os.environ["GATEWAY_BENCH_REPLY_CPU"], "w") as out:
        out.write(" ".join(f"{found:.9f}" for found in _FOUND))


if os.environ.get("GATEWAY_BENCH_REPLY_CPU"):
    http.HttpFront.__call__ = _probed
    atexit.register(_write)
