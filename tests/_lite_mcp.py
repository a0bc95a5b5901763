"""Small MCP servers written with the standard library alone, for the tests whose subject is
not the MCP SDK: the SDK's server costs 0.8 to 1.1 s of CPU at each start (``import mcp``),
and such a test starts one per plugin host, per CLI verb. This one costs ~0.04 s (a
script: its HTTP side and ``inspect`` are not imported).

The API is the SDK's ``MCPServer`` in small: ``server = Server("calc")``, functions under
``@server.tool()``, ``@server.prompt()``, ``@server.resource(uri)`` (a tool's input schema
read from its signature, a ``ctx: Context`` parameter left out of it), then ``server.run()``
(stdio). A test writes a server as a script with ``script(body)``: this module's own source
followed by ``body``, so the script needs nothing but Python — a plugin folder copied
anywhere, a sandbox that sees no tests. In the test's own process, ``serving(server,
transport)`` serves it over loopback HTTP.

The protocol, enough of it for what the tests assert: JSON-RPC over stdio lines, over
streamable HTTP (each response a JSON body; no stream, no session id) and over the older
HTTP+SSE transport; ``initialize`` (the client's protocol version answered when known,
else the latest), ``ping``, ``tools/list``/``call`` (a tool's error, or an exception, is a
result with ``isError``), ``prompts/list``/``get``, ``resources/list``/``read``,
``resources/templates/list``, ``notifications/cancelled`` (a cancelled call is never
answered), progress and log notifications through the context; any other request is
"method not found", as an older server answers the SDK client's ``server/discover``.

The contract with servers built on the real SDK stays with the tests that run them: stdio in
tests/agent_plugins/test_plugin_host.py (the plugin host) and test_cli.py (the ``gateway``
command line), streamable HTTP and SSE in tests/plugin_host/test_remote.py (the OAuth
server)."""

from __future__ import annotations

import json
import sys
import threading
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from http.server import BaseHTTPRequestHandler

LATEST = "2025-11-25"
KNOWN = ("2024-11-05", "2025-03-26", "2025-06-18", LATEST)
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", dict: "object"}

Send = Callable[[dict[str, Any]], None]


def script(body: str) -> str:
    """A server's whole script: this module's source, then ``body`` (its first lines may be
    indented as a test's triple-quoted string is)."""
    import textwrap

    return Path(__file__).read_text(encoding="utf-8") + "\n\n" + textwrap.dedent(body)


class ToolError(Exception):
    """Raised by a tool: its message is the error result's text."""


class Context:
    """What a tool may ask for by taking a ``ctx`` parameter: the request's ``_meta``, and
    progress and log notifications to the client."""

    def __init__(self, send: Send, meta: dict[str, Any], cancelled: threading.Event) -> None:
        self.meta, self.cancelled, self._send = meta, cancelled, send

    def report_progress(
        self, progress: float, total: float | None = None, message: str = ""
    ) -> None:
        token = self.meta.get("progressToken")
        if token is not None:
            params = {"progressToken": token, "progress": progress, "total": total,
                      "message": message}  # fmt: skip
            self._send({"method": "notifications/progress", "params": params})

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        params = {"level": level, "data": data, **({"logger": logger} if logger else {})}
        self._send({"method": "notifications/message", "params": params})


def _schema(annotation: Any) -> dict[str, Any]:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list:
        return {"type": "array", "items": _schema(args[0]) if args else {}}
    if origin is dict:
        return {"type": "object"}
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        kinds = [_schema(arg) for arg in args if arg is not type(None)]
        return kinds[0] if len(kinds) == 1 else {"anyOf": kinds}
    return {"type": _JSON_TYPES[annotation]} if annotation in _JSON_TYPES else {}


def _parameters(function: Callable[..., Any]) -> tuple[dict[str, Any], list[str], bool]:
    """A function's arguments as JSON Schema properties, the required ones, whether it takes
    the context."""
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required: list[str] = []
    wants_context = False
    code = function.__code__  # its names and defaults, not inspect's (~14 ms of a script)
    names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    defaulted = {
        *names[code.co_argcount - len(function.__defaults__ or ()) : code.co_argcount],
        *(function.__kwdefaults__ or {}),
    }
    for name in names:
        if hints.get(name) is Context:
            wants_context = True
            continue
        properties[name] = _schema(hints.get(name, Any))
        if name not in defaulted:
            required.append(name)
    return properties, required, wants_context


class Server:
    def __init__(self, name: str, version: str = "1.0.0") -> None:
        self.name, self.version = name, version
        self.tools: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}
        self.prompts: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}
        self.resources: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {}
        self.templates: list[dict[str, Any]] = []
        self._cancelled: dict[Any, threading.Event] = {}

    # -- what a server offers ---------------------------------------------------------

    def tool(
        self, name: str | None = None, description: str | None = None, **fields: Any
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``fields``: more of the listed tool (``annotations``, ``outputSchema``)."""

        def add(function: Callable[..., Any]) -> Callable[..., Any]:
            properties, required, _ = _parameters(function)
            listed = {"name": name or function.__name__,
                      "description": description or function.__doc__ or "",
                      "inputSchema": {"type": "object", "properties": properties,
                                      "required": required}, **fields}  # fmt: skip
            self.tools[listed["name"]] = (listed, function)
            return function

        return add

    def prompt(
        self, name: str | None = None, description: str | None = None
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def add(function: Callable[..., Any]) -> Callable[..., Any]:
            properties, required, _ = _parameters(function)
            arguments = [{"name": key, "required": key in required} for key in properties]
            listed = {"name": name or function.__name__, "arguments": arguments,
                      "description": description or function.__doc__ or ""}  # fmt: skip
            self.prompts[listed["name"]] = (listed, function)
            return function

        return add

    def resource(
        self,
        uri: str,
        name: str | None = None,
        description: str = "",
        mime_type: str = "text/plain",
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def add(function: Callable[..., Any]) -> Callable[..., Any]:
            listed = {"uri": uri, "name": name or function.__name__, "description": description,
                      "mimeType": mime_type}  # fmt: skip
            if "{" in uri:
                self.templates.append({**listed, "uriTemplate": listed.pop("uri")})
            else:
                self.resources[uri] = (listed, function)
            return function

        return add

    # -- the protocol -----------------------------------------------------------------

    def handle(self, message: dict[str, Any], send: Send, *, threaded: bool = False) -> None:
        """One message from the client; what it answers goes to ``send``. ``threaded``: a
        tool call runs on a thread of its own (stdio: the next messages, a cancel among
        them, are read meanwhile)."""
        method, params = message.get("method"), message.get("params") or {}
        if method is None:
            return  # an answer to a request of ours: this server asks nothing
        if "id" not in message:
            if method == "notifications/cancelled":
                self._cancelled.setdefault(params.get("requestId"), threading.Event()).set()
            return
        request_id = message["id"]
        if method == "tools/call":
            cancelled = self._cancelled.setdefault(request_id, threading.Event())
            arguments = (request_id, params, send, cancelled)
            if threaded:
                threading.Thread(target=self._call, args=arguments, daemon=True).start()
            else:
                self._call(*arguments)
            return
        try:
            result = self._answer(method, params, send)
        except LookupError as error:
            send({"id": request_id, "error": {"code": -32601, "message": str(error)}})
        except (ValueError, TypeError) as error:
            send({"id": request_id, "error": {"code": -32602, "message": str(error)}})
        else:
            send({"id": request_id, "result": result})

    def _answer(self, method: str, params: dict[str, Any], send: Send) -> dict[str, Any]:
        if method == "initialize":
            asked = params.get("protocolVersion")
            capabilities: dict[str, Any] = {"tools": {"listChanged": False}, "logging": {}}
            if self.prompts:
                capabilities["prompts"] = {"listChanged": False}
            if self.resources or self.templates:
                capabilities["resources"] = {"listChanged": False, "subscribe": False}
            return {"protocolVersion": asked if asked in KNOWN else LATEST,
                    "capabilities": capabilities,
                    "serverInfo": {"name": self.name, "version": self.version}}  # fmt: skip
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [listed for listed, _ in self.tools.values()]}
        if method == "prompts/list":
            return {"prompts": [listed for listed, _ in self.prompts.values()]}
        if method == "prompts/get":
            listed, function = self.prompts[params["name"]]
            arguments = params.get("arguments") or {}
            missing = [a["name"] for a in listed["arguments"]
                       if a["required"] and a["name"] not in arguments]  # fmt: skip
            if missing:
                raise ValueError(f"Missing required arguments: {set(missing)}")
            if _parameters(function)[2]:
                arguments["ctx"] = Context(send, params.get("_meta") or {}, threading.Event())
            text = str(function(**arguments))
            return {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]}
        if method == "resources/list":
            return {"resources": [listed for listed, _ in self.resources.values()]}
        if method == "resources/templates/list":
            return {"resourceTemplates": self.templates}
        if method == "resources/read":
            listed, function = self.resources[params["uri"]]
            return {"contents": [{"uri": listed["uri"], "mimeType": listed["mimeType"],
                                  "text": str(function())}]}  # fmt: skip
        raise LookupError(f"Method not found: {method}")

    def _call(
        self, request_id: Any, params: dict[str, Any], send: Send, cancelled: threading.Event
    ) -> None:
        name, arguments = params.get("name"), dict(params.get("arguments") or {})
        try:
            if name not in self.tools:
                raise ToolError(f"Unknown tool: {name}")
            function = self.tools[name][1]
            if _parameters(function)[2]:
                meta = params.get("_meta") or {}
                arguments["ctx"] = Context(send, meta, cancelled)
            result = _result(function(**arguments))
        except Exception as error:  # a tool's failure is a result the model reads
            result = {"content": [{"type": "text", "text": str(error)}], "isError": True}
        finally:
            self._cancelled.pop(request_id, None)
        if not cancelled.is_set():
            send({"id": request_id, "result": result})

    # -- transports -------------------------------------------------------------------

    def run(self) -> None:
        """Serve over stdio, one JSON-RPC message a line, until stdin ends."""
        lock = threading.Lock()

        def send(message: dict[str, Any]) -> None:
            with lock:
                sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
                sys.stdout.flush()

        for line in sys.stdin:
            if line.strip():
                self.handle(json.loads(line), send, threaded=True)


def _result(value: Any) -> dict[str, Any]:
    """A tool's return as a call result: text, content blocks, or a whole result."""
    if isinstance(value, dict) and "content" in value:
        return {"isError": False, **value}
    blocks = value if isinstance(value, list) else [{"type": "text", "text": str(value)}]
    return {"content": blocks, "isError": False}


def _handler(server: Server, transport: str) -> type[BaseHTTPRequestHandler]:
    import queue  # the HTTP side's modules: a stdio server (a script) never loads them
    import uuid
    from http.server import BaseHTTPRequestHandler

    streams: dict[str, queue.Queue[dict[str, Any] | None]] = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: dict[str, Any] | None = None) -> None:
            data = json.dumps({"jsonrpc": "2.0", **body}).encode() if body else b""
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _read(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            message: dict[str, Any] = json.loads(self.rfile.read(length))
            return message

        def do_GET(self) -> None:
            if transport != "sse" or not self.path.startswith("/sse"):
                self._reply(405)  # streamable HTTP: no stream of the server's own requests
                return
            session = uuid.uuid4().hex
            stream = streams[session] = queue.Queue()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self._event("endpoint", f"/messages/?session_id={session}")
            while (message := stream.get()) is not None:
                try:
                    self._event("message", json.dumps({"jsonrpc": "2.0", **message}))
                except OSError:
                    break
            streams.pop(session, None)

        def _event(self, kind: str, data: str) -> None:
            self.wfile.write(f"event: {kind}\r\ndata: {data}\r\n\r\n".encode())
            self.wfile.flush()

        def do_POST(self) -> None:
            message = self._read()
            if transport == "sse":
                session = self.path.partition("session_id=")[2]
                if session not in streams:
                    self._reply(404)
                    return
                self._reply(202)
                server.handle(message, streams[session].put, threaded=True)
                return
            if "id" not in message or "method" not in message:
                self._reply(202)  # a notification or an answer: accepted, nothing to say
                server.handle(message, lambda _: None)
                return
            answers: list[dict[str, Any]] = []
            server.handle(message, answers.append)  # progress and logs are not streamed
            self._reply(200, answers[-1])

        def do_DELETE(self) -> None:
            self._reply(405)

    Handler.streams = streams  # type: ignore[attr-defined]
    return Handler


@contextmanager
def serving(server: Server, transport: str = "streamable-http") -> Iterator[str]:
    """``server`` on a loopback port of this process, in threads; yields its URL (``/mcp``,
    or ``/sse`` for the HTTP+SSE transport)."""
    from http.server import ThreadingHTTPServer

    handler = _handler(server, transport)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}/{'sse' if transport == 'sse' else 'mcp'}"
    finally:
        for stream in list(handler.streams.values()):  # type: ignore[attr-defined]
            stream.put(None)
        httpd.shutdown()
        httpd.server_close()
