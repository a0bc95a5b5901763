"""The loopback MCP server with its own authorization server (``fixtures/oauth_mcp_server.py``)
as a real process, what the tests change on it, and a person's browser for a sign-in."""

from __future__ import annotations

import copy
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx2

FIXTURE = Path(__file__).parent / "fixtures" / "oauth_mcp_server.py"


class OAuthServer:
    def __init__(self, transport: str = "streamable-http", auth: bool = True) -> None:
        command = [sys.executable, str(FIXTURE), "--transport", transport]
        self.process = subprocess.Popen(
            [*command, *([] if auth else ["--no-auth"])],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # printed once it listens; a crash ends it
        assert line.startswith("PORT "), self.process.stderr.read() if self.process.stderr else ""
        self.port = int(line.split()[1])
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = self.base + ("/sse" if transport == "sse" else "/mcp")
        self.grant = f"network:127.0.0.1:{self.port}"

    def sse(self) -> OAuthServer:
        """The same server seen at its SSE endpoint (one started with ``both``)."""
        view = copy.copy(self)
        view.url = self.base + "/sse"
        return view

    def post(self, path: str, **params: Any) -> None:
        response = httpx2.post(self.base + path, params=params, timeout=30)
        assert response.status_code == 200, response.text

    def state(self) -> dict[str, Any]:
        data: dict[str, Any] = httpx2.get(self.base + "/test/state", timeout=30).json()
        return data

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdout, self.process.stderr):
            if pipe is not None:
                pipe.close()


def browse(url: str) -> None:
    """A person's browser: follows the authorization URL's redirects back to the loopback
    listener, on a thread of its own (the listener answers in the event loop)."""

    def visit() -> None:
        httpx2.get(url, follow_redirects=True, timeout=30)

    threading.Thread(target=visit, daemon=True).start()
