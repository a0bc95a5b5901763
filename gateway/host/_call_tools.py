"""Running the tools an adapter planned as ``CallTool``s: a fresh process per call.

Each call gets a private scratch folder in the package's temp folder (its ``HOME`` and
``TMPDIR``, removed after), the package's sandbox (``_confinement``: its grants, no network
unless granted), an environment of the locale, time zone and what the plan adds (nothing
else of the gateway's), its arguments on stdin, its own process group, capped output, and a
timeout that kills the whole group. Its stderr goes to the package's log. It starts through
``_child.run_child``, as every process the gateway starts (exit awaited on a pidfd, no
watcher thread: a per-call tool pays nothing for it).

- A process killed by a signal or ending without a result crashed: a tool marked
  ``retry_on_crash`` runs once more; otherwise (or on the second crash) the call is an
  error result (``tool.crashed``).
- An ``at_most_once`` call is journaled before it starts (``gateway.store.CallJournal``)
  and marked done after. One cut short — a timeout, a crash, a cancel — may or may not
  have had its effect: it is ``indeterminate``, never retried, and the same call is
  refused until the user resolves it (``gateway journal``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio

from gateway.base import Diagnostic, private_dir, private_file, telemetry
from gateway.host import _codes
from gateway.host._call_result import read_call_result
from gateway.host._confinement import Confinement
from gateway.host._state import GatewayState
from gateway.host._unreachable import say_unreachable
from gateway.model import CallTool, ToolOutcome
from gateway.runtime import ChildOutput, run_child
from gateway.sandbox import SandboxPolicy, SandboxUnavailable, package_dirs
from gateway.store import STATE_FILE, CallJournal, JournalEntry, StateStore, StoreError
from gateway.wire import calls_log

__all__ = ["INDETERMINATE", "CallRunner", "call_environment", "interrupted_calls"]

INDETERMINATE = "indeterminate"
"""``ToolResult.error_code`` of a call refused because an identical one was interrupted."""
MINIMAL_ENVIRONMENT = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
"""What a per-call tool sees of the gateway's environment."""
_STDERR_SHOWN = 2000
_PIPE_PAYLOAD = 16 * 1024
"""Arguments up to this size go through a pipe (Linux pipes hold 64 KiB; 16 KiB is below
every platform's buffer)."""


def call_environment(tool: CallTool, scratch: Path) -> dict[str, str]:
    """The locale, what the plan adds, the call's scratch folder — and, when the gateway
    traces, the call's W3C trace context as ``TRACEPARENT`` / ``TRACESTATE`` (what a
    traced program reads its parent from: a Nu tool's fetch instrumented, a program it
    runs). Taken in the calling task, where the call's span is current."""
    env = {name: os.environ[name] for name in MINIMAL_ENVIRONMENT if name in os.environ}
    env.update(tool.env)
    env.update(HOME=str(scratch), TMPDIR=str(scratch))
    if telemetry.tracing():
        env.update((key.upper(), value) for key, value in telemetry.carrier().items())
    return env


@dataclass(frozen=True, slots=True)
class _Attempt:
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    stdout_cut: bool


class CallRunner:
    def __init__(self, state: GatewayState) -> None:
        self._state = state

    async def call(self, package: str, tool: CallTool, arguments: dict[str, Any]) -> ToolOutcome:
        if tool.unavailable is not None:
            return ToolOutcome(f"{tool.name}: {tool.unavailable}", is_error=True)
        policy = Confinement(self._state).call(package, tool.reads)
        if not tool.at_most_once:
            done = await self._run(package, tool, arguments, policy)
            return self._said(package, tool, policy, done)
        try:
            begun = await anyio.to_thread.run_sync(self._begin, package, tool.name, arguments)
        except StoreError as error:
            self._state.diagnostics.add(
                _codes.JOURNAL_UNUSABLE(
                    f"{package}: {tool.name} not run: {error}", package=package,
                    contribution=tool.name,
                )
            )  # fmt: skip
            return ToolOutcome(f"{tool.name} was not run: the journal is unusable ({error})", True)
        if isinstance(begun, JournalEntry):
            return self._refused(package, tool, begun)
        outcome: ToolOutcome | None = None
        try:
            outcome = await self._run(package, tool, arguments, policy)
        finally:
            with anyio.CancelScope(shield=True):
                settled = outcome is not None and not outcome.extra.get("interrupted")
                how = ("error" if outcome.is_error else "ok") if outcome and settled else None
                await anyio.to_thread.run_sync(self._end, package, tool.name, begun, how)
        assert outcome is not None
        return self._said(package, tool, policy, outcome)

    def _said(
        self, package: str, tool: CallTool, policy: SandboxPolicy | None, outcome: ToolOutcome
    ) -> ToolOutcome:
        """``outcome``, unchanged, once a host its sandbox could not reach is said."""
        say_unreachable(self._state, package, tool.name, policy, outcome)
        return outcome

    # ------------------------------------------------------------------ the journal

    def _store(self) -> StateStore:
        return StateStore.open(self._state.config.home)

    def _begin(self, package: str, name: str, arguments: dict[str, Any]) -> str | JournalEntry:
        with self._store() as store:
            journal = CallJournal(store)
            blocking = journal.blocking(package, name, arguments)
            if blocking is not None:
                return blocking
            return journal.begin(package, name, arguments, self._state.session.id)

    def _end(self, package: str, name: str, call_id: str, outcome: str | None) -> None:
        try:
            with self._store() as store:
                journal = CallJournal(store)
                if outcome is None:
                    journal.interrupt(call_id, "interrupted")
                else:
                    journal.finish(call_id, outcome)
        except StoreError as error:
            # The row stays `running`: once this gateway is gone it reads as interrupted,
            # which is the safe side for a call that must not repeat.
            self._state.diagnostics.add(
                _codes.JOURNAL_UNUSABLE(
                    f"{package}: {name} ran, but the journal could not record it: {error}",
                    package=package,
                    contribution=name,
                )
            )

    def _refused(self, package: str, tool: CallTool, entry: JournalEntry) -> ToolOutcome:
        message = (
            f"{tool.name} was not run: an identical call ({entry.id}, started "
            f"{entry.started_at:%Y-%m-%d %H:%M:%S} UTC) was interrupted and may or may not "
            "have had its effect. It must run at most once, so the gateway waits for you: "
            f"check, then `gateway journal resolve {entry.id} ran` (or `not_run`)."
        )
        self._state.diagnostics.add(
            _codes.JOURNAL_INDETERMINATE(
                f"{package}: {message}", package=package, contribution=tool.name,
                hint=f"gateway journal resolve {entry.id} ran|not_run",
            )
        )  # fmt: skip
        return ToolOutcome(message, True, {"error_code": INDETERMINATE})

    # ------------------------------------------------------------------ running

    async def _run(
        self, package: str, tool: CallTool, arguments: dict[str, Any], policy: SandboxPolicy | None
    ) -> ToolOutcome:
        attempts = 2 if tool.retry_on_crash else 1
        for attempt in range(1, attempts + 1):
            done = await self._once(package, tool, arguments, attempt, policy)
            if done.timed_out:
                return ToolOutcome(
                    f"{tool.name} timed out after {tool.timeout:g}s", True, {"interrupted": True}
                )
            if done.stdout_cut:
                return ToolOutcome(
                    f"{tool.name}: its result exceeded {self._state.config.line_cap} bytes",
                    True,
                    {"interrupted": True},
                )
            outcome = None
            if done.returncode is not None and done.returncode >= 0:
                outcome = read_call_result(
                    done.stdout.decode("utf-8", "replace"), tool.name, self._state.config.home
                )
            if outcome is not None:
                return outcome
            why = _crash(done)
            if attempt < attempts:
                self._state.diagnostics.add(
                    _codes.CALL_RETRIED(
                        f"{package}: {tool.name} {why}; it is safe to retry, so it ran again",
                        package=package, contribution=tool.name,
                    )
                )  # fmt: skip
                continue
            self._state.diagnostics.add(
                _codes.CALL_CRASHED(
                    f"{package}: {tool.name} {why}", package=package, contribution=tool.name
                )
            )
            tail = done.stderr.decode("utf-8", "replace").strip()[-_STDERR_SHOWN:]
            detail = f"\n{tail}" if tail else ""
            return ToolOutcome(f"{tool.name} {why}{detail}", True, {"interrupted": True})
        raise AssertionError("unreachable")  # pragma: no cover

    async def _once(
        self, package: str, tool: CallTool, arguments: dict[str, Any], attempt: int,
        policy: SandboxPolicy | None,
    ) -> _Attempt:  # fmt: skip
        config = self._state.config
        # In the package's own temp folder: private, and writable in its sandbox.
        temp = package_dirs(config.home, package)[1]
        scratch = Path(tempfile.mkdtemp(prefix="call-", dir=temp))
        done: ChildOutput | None = None
        try:
            command = [part.replace("{scratch}", str(scratch)) for part in tool.command]
            payload = json.dumps({**tool.payload, "args": arguments}, ensure_ascii=False)
            with _stdin(payload.encode()) as stdin:
                try:
                    done = await run_child(
                        command, policy=policy, require_sandbox=config.require_sandbox,
                        stdin=stdin, cwd=scratch, env=call_environment(tool, scratch),
                        time_limit=tool.timeout, cap=config.line_cap,
                    )  # fmt: skip
                except (OSError, SandboxUnavailable) as error:
                    message = f"cannot start {command[0]}: {error}".encode()
                    return _Attempt(127, b"", message, False, False)
        finally:
            _remove(scratch)
        self._state.diagnostics.extend(list(done.exceeded))
        # The result may take the protocol's line cap; stderr is a log, kept shorter.
        stderr = done.stderr[-config.tool_output_cap :]
        if stderr or done.timed_out or done.returncode != 0:
            self._log(package, tool.name, attempt, done.returncode, done.timed_out, stderr)
        return _Attempt(done.returncode, done.stdout, stderr, done.timed_out, done.stdout_cut)

    def _log(
        self, package: str, tool: str, attempt: int, code: int | None, timed_out: bool,
        stderr: bytes,
    ) -> None:  # fmt: skip
        """The call's stderr (or how it ended badly), under a header line, in the
        package's per-call log."""
        ended = "timed out" if timed_out else f"exit {code}"
        header = f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {tool} attempt {attempt}: {ended}\n"
        try:
            private_dir(self._state.config.logs_dir)
            fd = private_file(calls_log(self._state.config.logs_dir, package), append=True)
            with os.fdopen(fd, "ab") as log:
                log.write(
                    header.encode() + stderr + (b"\n" if stderr[-1:] not in (b"", b"\n") else b"")
                )
        except OSError:
            return  # a log that cannot be written costs the log, never the call


@contextmanager
def _stdin(payload: bytes) -> Iterator[IO[bytes] | int]:
    """The call's stdin: a pipe already holding the payload when it fits in the pipe's
    buffer (no file to make), else a temporary file (a child that reads slowly can never
    block the gateway on a write)."""
    if len(payload) <= _PIPE_PAYLOAD:
        read, write = os.pipe()
        try:
            os.write(write, payload)
        finally:
            os.close(write)
        try:
            yield read
        finally:
            os.close(read)
        return
    with tempfile.TemporaryFile() as file:
        file.write(payload)
        file.seek(0)
        yield file


def _remove(scratch: Path) -> None:
    try:
        scratch.rmdir()  # what a call leaves most often: nothing
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)


def interrupted_calls(home: Path) -> list[Diagnostic]:
    """Interrupted at-most-once calls no one has resolved yet (a gateway that crashed
    mid-call leaves them): one diagnostic each. Synchronous (the state store)."""
    if not (home / STATE_FILE).exists():
        return []
    with StateStore.open(home) as store:
        entries = CallJournal(store).sweep()
    return [
        _codes.JOURNAL_INDETERMINATE(
            f"{entry.package_id}: {entry.tool} {entry.arguments[:200]} (call {entry.id}, "
            f"started {entry.started_at:%Y-%m-%d %H:%M:%S} UTC) was interrupted; it may or "
            "may not have had its effect and will not run again by itself",
            package=entry.package_id,
            contribution=entry.tool,
            hint=f"gateway journal resolve {entry.id} ran|not_run",
        )
        for entry in entries
    ]


def _crash(done: _Attempt) -> str:
    code = done.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"crashed: killed by {name}"
    return f"crashed: exited (status {code}) without a result"
