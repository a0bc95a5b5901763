"""The plugin host run in the test's own process (``HostHere``), driven line by line as
``tests.agent_plugins._helpers.Host`` drives the real one: the host's own ``main`` in a
thread, its protocol over a pair of pipes instead of its stdin and stdout, its log (what it
writes to stderr) kept for ``log``.

A host process pays Python's start and, for a remote server, the MCP SDK's client and
``httpx2`` (~1 s of CPU together); here the SDK is imported once by the test process. For the
tests whose subject is what the host does with a remote server (its sign-in, refresh,
refusals and their diagnostics), not its process: the real host over its stdio reaching a
remote server is ``test_auth_cli.py``'s (started by the gateway) and
``test_unreachable_start.py``'s; what it imports at its start is ``test_hooks_alone.py``'s.
The host sees the test process's environment (as the in-process sign-in does).
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import sys
import threading
from pathlib import Path
from typing import Any
from unittest import mock

from adapters.plugin_host import _main
from adapters.plugin_host._channel import Channel, log
from tests.agent_plugins._helpers import ALL_FEATURES, Host, initialize_message

__all__ = ["HostHere"]


class _Log(io.TextIOBase):
    """What the host writes to stderr while it runs, kept (``sys.stderr`` of the process)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        return None


class HostHere(Host):
    """``Host``'s conversation (``read``, ``reply``, ``tool``, ``command``, ``updates``,
    ``log``) with the plugin host's ``main`` running in a thread of this process. One at a
    time: the host's stderr is this process's while it runs."""

    def __init__(self, config: Path, features: list[str] | None = ALL_FEATURES) -> None:
        host_in, self._to_host = os.pipe()
        self._from_host, host_out = os.pipe()
        self._host_fds = (host_in, host_out)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: list[bytes] = []
        self.updates: list[dict[str, Any]] = []
        self._log = _Log()
        self._saved = (sys.stderr, sys.dont_write_bytecode)
        sys.stderr = self._log  # type: ignore[assignment]
        self.code: int | None = None
        channel = Channel(host_in, host_out, log)
        self._patch = mock.patch.object(_main, "take_stdio", lambda: channel)
        self._patch.start()
        self._threads = [
            threading.Thread(target=self._serve, args=(config,), daemon=True),
            threading.Thread(target=self._pump, daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self.send(initialize_message(config, features))

    def _serve(self, config: Path) -> None:
        try:
            self.code = _main.main(["--config", str(config)])
        finally:
            os.close(self._host_fds[1])  # the end of the host's output, as at its exit

    def _pump(self) -> None:
        with open(self._from_host, "rb") as reading:
            for line in reading:
                self.lines.put(line)
        self.lines.put(None)

    @property
    def log(self) -> str:
        return "".join(self._log.parts)

    def send(self, message: dict[str, Any]) -> None:
        import json

        os.write(self._to_host, json.dumps(message).encode() + b"\n")

    def close(self, timeout: float = 15.0) -> int:
        try:
            if self._threads[0].is_alive():
                with contextlib.suppress(OSError):
                    self.send({"type": "shutdown"})
            os.close(self._to_host)
            self._threads[0].join(timeout)
            assert not self._threads[0].is_alive(), f"the host did not end; log:\n{self.log}"
            self._threads[1].join(5)
        finally:
            self._patch.stop()
            os.close(self._host_fds[0])
            sys.stderr, sys.dont_write_bytecode = self._saved
        return self.code if self.code is not None else -1

    def __enter__(self) -> HostHere:
        return self
