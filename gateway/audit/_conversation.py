"""The conversation of an observed load: start the confined runtime, send ``initialize``, and
read until ``register`` — declining every ``ui_request`` and ``host_request`` it makes on the
way, and noting them — then stop it and its process group. Nothing else is ever sent.
"""

from __future__ import annotations

import contextlib
import json
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from gateway.model import CatalogEntry
from gateway.runtime import kill_group, signal_group
from gateway.sandbox import spawn_confined, wait_for_exit
from gateway.wire import (
    ChildPipes,
    LineFramer,
    OversizedLine,
    PipeClosed,
    RegisterMessage,
    describe_validation_error,
)
from gateway.wire.features import EXTENSION_FEATURES, RUNTIME_FEATURES, announcement

__all__ = ["Conversation", "converse"]


@dataclass(slots=True)
class Conversation:
    """What the load showed: its ``register`` (None: none came, ``error`` says why) and the
    requests it made before it."""

    register: RegisterMessage | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


async def converse(
    entry: CatalogEntry,
    command: list[str],
    env: dict[str, str],
    workspace: Path,
    policy: Any,
    log: Path,
    limit: float,
) -> Conversation:
    conversation = Conversation()
    pipes = ChildPipes()
    with await anyio.to_thread.run_sync(open, log, "wb") as errors:
        try:
            process = spawn_confined(
                command, policy=policy, stdin=pipes.child_stdin, stdout=pipes.child_stdout,
                stderr=errors, cwd=workspace, env=env,
            )  # fmt: skip
        except OSError as error:
            pipes.close()
            conversation.error = f"cannot start {Path(command[0]).name}: {error}"
            return conversation
        pipes.after_spawn()
        features = RUNTIME_FEATURES if entry.runtime != "nimlet-process" else EXTENSION_FEATURES
        initialize = {
            "type": "initialize", "version": 1, "workspace": str(workspace),
            "session_id": "audit", "gateway": announcement(features),
        }  # fmt: skip
        try:
            with anyio.move_on_after(limit) as deadline:
                await pipes.send(json.dumps(initialize).encode() + b"\n")
                await _until_register(pipes, conversation)
            if deadline.cancelled_caught:
                conversation.error = f"no register within {limit:g} s"
        except PipeClosed:
            conversation.error = "it exited before register"
        finally:
            await _stop(process, pipes)
    if conversation.register is None:
        tail = _tail(log)
        conversation.error = (conversation.error or "it exited before register") + (
            f"; its last output: {tail}" if tail else ""
        )
    return conversation


async def _until_register(pipes: ChildPipes, conversation: Conversation) -> None:
    framer = LineFramer(16 * 1024 * 1024)
    async for chunk in pipes.chunks():
        for line in framer.feed(chunk):
            if isinstance(line, OversizedLine):
                conversation.error = f"a line of {line.size} bytes"
                return
            if await _handle(line, pipes, conversation):
                return
    conversation.error = conversation.error or "it exited before register"


async def _handle(line: bytes, pipes: ChildPipes, conversation: Conversation) -> bool:
    """One line; True once ``register`` (valid or not) arrived."""
    try:
        message = json.loads(line)
    except ValueError:
        conversation.requests.append(
            {"what": "a line that is not JSON", "detail": line[:120].decode(errors="replace")}
        )
        return False
    kind = message.get("type") if isinstance(message, dict) else None
    if kind == "register":
        try:
            conversation.register = RegisterMessage.model_validate(message)
        except ValidationError as error:
            conversation.error = f"invalid register: {describe_validation_error(error)}"
        return True
    if kind == "ui_request":
        conversation.requests.append(
            {
                "what": f"a ui_request {message.get('method')!r}",
                "detail": str(message.get("prompt", ""))[:120],
            }
        )
        await pipes.send(
            json.dumps(
                {"type": "ui_response", "id": message.get("id"), "answer": "", "cancelled": True}
            ).encode()
            + b"\n"
        )
    elif kind == "host_request":
        conversation.requests.append(
            {"what": f"a host_request {message.get('method')!r}", "detail": ""}
        )
        reply = {
            "type": "host_response",
            "id": message.get("id"),
            "error": "the audit answers no host requests",
        }
        await pipes.send(json.dumps(reply).encode() + b"\n")
    else:
        conversation.requests.append(
            {"what": f"a {kind or 'message without a type'}", "detail": ""}
        )
    return False


async def _stop(process: Any, pipes: ChildPipes) -> None:
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            with contextlib.suppress(PipeClosed), anyio.move_on_after(0.5):
                await pipes.send(b'{"type":"shutdown"}\n')
            pipes.close_stdin()
            with anyio.move_on_after(2):
                await wait_for_exit(process)
        if process.returncode is None:
            signal_group(process.pid, signal.SIGTERM)
            with anyio.move_on_after(1):
                await wait_for_exit(process)
        if process.returncode is None or signal_group(process.pid, 0):
            kill_group(process.pid)
            with anyio.move_on_after(2):
                await wait_for_exit(process)
        pipes.close()


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in lines[-4:])[:600]
