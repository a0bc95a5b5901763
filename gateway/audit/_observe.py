"""The observed load (``--load``): start a package's runtime once, in a throwaway sandbox, and
record what it registers — then stop it. No tool, command or event is ever sent.

The sandbox: a private ``HOME`` and ``GATEWAY_HOME`` and an empty workspace in a temporary
folder, removed afterwards; the allow-listed environment with nothing passed through; the
OS sandbox (``gateway.sandbox``: the runtime, the package and system files readable, only
the temporary folder writable, no network); for the Node sidecar, Node's permission model
too (no child processes, workers, native addons or writes outside the temporary folder) and
its recording mode (``GATEWAY_SIDECAR_RECORD=1``, ``sidecars/lib/audit/``), which lists
every registration and API call with the file and line that made it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from pydantic import ValidationError

from gateway.audit import _codes
from gateway.audit._assemble import Observed
from gateway.audit._model import Observation, PackageAudit
from gateway.audit._support import Evidence, Found, HostKnowledge, Item, Status, Support
from gateway.base import Diagnostic, GatewayConfig, catalogue
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec
from gateway.packages import load_adapters, remove_tree
from gateway.runtime import child_environment, kill_group, resolve_command, signal_group
from gateway.sandbox import (
    PackageGrants,
    detect_support,
    missing_protections,
    node_runtime_paths,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
    wait_for_exit,
)
from gateway.wire import (
    ChildPipes,
    LineFramer,
    OversizedLine,
    PipeClosed,
    RegisterMessage,
    describe_validation_error,
)
from gateway.wire.features import EXTENSION_FEATURES, RUNTIME_FEATURES, announcement

__all__ = ["RECORD_VARIABLE", "observe"]

RECORD_VARIABLE = "GATEWAY_SIDECAR_RECORD"
START_LIMIT = 120.0
"""Seconds to wait for ``register`` (a cold TypeScript compile is slow)."""
_REGISTERED = frozenset({"tool", "command"})


@dataclass(slots=True)
class _Conversation:
    register: RegisterMessage | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


async def observe(
    entry: CatalogEntry,
    config: GatewayConfig,
    knowledge: Mapping[str, HostKnowledge],
    package: PackageAudit,
) -> Observed:
    started = time.monotonic()
    observed = Observed()
    scratch = Path(tempfile.mkdtemp(prefix="gateway-audit-load-"))
    try:
        home, user_home, workspace = (scratch / name for name in ("gateway", "home", "ws"))
        for folder in (home, user_home, workspace):
            folder.mkdir(mode=0o700)
        plan = await anyio.to_thread.run_sync(_plan, entry, home)
        if isinstance(plan, str):
            package.observation = Observation(False, entry.runtime, "not started", 0.0, error=plan)
            observed.diagnostics.append(
                _codes.LOAD_UNAVAILABLE(f"{entry.id}: nothing loaded: {plan}", package=entry.id)
            )
            return observed
        command, env, limit = _confine_node(entry, plan, scratch, home, user_home)
        sandbox = package_sandbox(
            home=home,
            package_id=entry.id,
            package_root=Path(entry.root),
            workspace=workspace,
            grants=PackageGrants(),
            runtime=_runtime_paths(entry, command),
        )
        env.update(sandbox.environment)
        support = detect_support()
        missing = missing_protections(sandbox.policy, support)
        where = sandbox.policy.summary() + (
            "; NOT enforced: " + "; ".join(missing) if missing else ""
        )
        if missing:
            observed.diagnostics.append(
                _codes.LOAD_UNCONFINED(
                    f"{entry.id}: loaded without {'; '.join(missing)}", package=entry.id
                )
            )
        log = scratch / "stderr.log"
        conversation = await _converse(entry, command, env, workspace, sandbox.policy, log, limit)
        seconds = time.monotonic() - started
        package.observation = Observation(
            conversation.register is not None, entry.runtime, where, seconds,
            requests=conversation.requests, error=conversation.error,
        )  # fmt: skip
        if conversation.register is None:
            observed.diagnostics.append(
                _codes.LOAD_FAILED(f"{entry.id}: {conversation.error}", package=entry.id)
            )
            return observed
        _read_register(entry, conversation.register, knowledge, observed, package.observation)
        for request in conversation.requests:
            observed.diagnostics.append(
                _codes.LOAD_REQUEST(
                    f"{entry.id}: while loading it sent {request['what']}", package=entry.id
                )
            )
        return observed
    finally:
        await anyio.to_thread.run_sync(remove_tree, scratch)


# --------------------------------------------------------------------------- the launch


def _plan(entry: CatalogEntry, home: Path) -> tuple[list[str], dict[str, str], float] | str:
    """The command, the environment the plan adds, and the start limit; or why nothing can
    be started."""
    if entry.runtime == "nimlet-process":
        command = entry.metadata.get("command")
        if not isinstance(command, list) or not command or not entry.metadata.get("valid"):
            return "its extension.json has no valid command"
        try:
            resolved = resolve_command(
                [str(c) for c in command], Path(entry.root), os.environ.get("PATH")
            )
        except Exception as error:  # LaunchError: a missing interpreter
            return str(error)
        timeout = entry.metadata.get("response_timeout_seconds")
        return resolved, {}, float(timeout) if isinstance(timeout, int | float) else 30.0
    adapter = load_adapters().adapter(entry.ecosystem)
    if adapter is None:
        return f"no adapter for {entry.ecosystem}"
    try:
        spec = adapter.plan_launch(entry, home)
    except Exception as error:  # an adapter bug is a finding, not a crash
        return f"the {entry.ecosystem} adapter could not plan a launch: {error!r}"
    if isinstance(spec, LaunchRefusal):
        return spec.reason
    if not isinstance(spec, LaunchSpec):
        return "the gateway runs nothing of it as a process (tool.json tools, skills, prompts)"
    limit = max(spec.start_timeout or 0.0, spec.response_timeout or 0.0, 30.0)
    return list(spec.command), dict(spec.env), min(limit, START_LIMIT)


def _confine_node(
    entry: CatalogEntry,
    plan: tuple[list[str], dict[str, str], float],
    scratch: Path,
    home: Path,
    user_home: Path,
) -> tuple[list[str], dict[str, str], float]:
    command, extra, limit = plan
    env = child_environment(extra={"HOME": str(user_home)})
    env.update(extra)
    env["GATEWAY_HOME"] = str(home)
    if entry.runtime == "node-sidecar":
        env[RECORD_VARIABLE] = "1"
        # Node's permission model: no child processes, workers, addons or writes outside the
        # scratch folder. Reads stay Node-wide (``*``): the OS sandbox limits them, and
        # Node's own read list throws at code that merely probes a parent folder.
        flags = ["--permission", "--allow-fs-read=*", f"--allow-fs-write={scratch}"]
        at = _node_at(command)
        command = [*command[: at + 1], *flags, *command[at + 1 :]]
    return command, env, limit


def _node_at(command: list[str]) -> int:
    """Where Node is in a sidecar's command: first, or after the shell step that moves the
    protocol's descriptors (``/bin/sh -c SCRIPT node …``)."""
    for index, part in enumerate(command):
        if Path(part).name.startswith("node"):
            return index
    return 0


def _runtime_paths(entry: CatalogEntry, command: list[str]) -> list[Path]:
    paths: list[Path] = []
    if entry.runtime == "node-sidecar":
        paths += node_runtime_paths(command[_node_at(command)])
    if entry.runtime == "python-sidecar" or Path(command[0]).name.startswith("python"):
        paths += python_runtime_paths()
    for index, argument in enumerate(command[1:], start=1):
        if command[index - 1] == "-m":
            spec = importlib.util.find_spec(argument.split(".")[0])
            for location in (spec.submodule_search_locations or []) if spec else []:
                paths.append(Path(location).parent)
        elif os.path.isabs(argument) and os.path.isfile(argument):
            paths.append(Path(argument).parent)
    return paths


# --------------------------------------------------------------------------- the conversation


async def _converse(
    entry: CatalogEntry,
    command: list[str],
    env: dict[str, str],
    workspace: Path,
    policy: Any,
    log: Path,
    limit: float,
) -> _Conversation:
    conversation = _Conversation()
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


async def _until_register(pipes: ChildPipes, conversation: _Conversation) -> None:
    framer = LineFramer(16 * 1024 * 1024)
    async for chunk in pipes.chunks():
        for line in framer.feed(chunk):
            if isinstance(line, OversizedLine):
                conversation.error = f"a line of {line.size} bytes"
                return
            if await _handle(line, pipes, conversation):
                return
    conversation.error = conversation.error or "it exited before register"


async def _handle(line: bytes, pipes: ChildPipes, conversation: _Conversation) -> bool:
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


# --------------------------------------------------------------------------- what it registered


def _read_register(
    entry: CatalogEntry,
    register: RegisterMessage,
    knowledge: Mapping[str, HostKnowledge],
    observed: Observed,
    observation: Observation,
) -> None:
    extras = register.gateway or {}
    record = extras.get("record") if isinstance(extras.get("record"), dict) else None
    reported = [d for d in extras.get("diagnostics") or [] if isinstance(d, dict)]
    observed.diagnostics += [_diagnostic(entry, d) for d in reported if _diagnostic(entry, d)]  # type: ignore[misc]
    registered = {("tool", t.name) for t in register.tools or []}
    registered |= {("command", c.name) for c in register.commands}
    sources: dict[tuple[str, str], str] = {}
    items: list[Item] = []
    if record is not None:
        observation.calls = [c for c in record.get("calls") or [] if isinstance(c, dict)]
        apis = set()
        for registration in record.get("registrations") or []:
            if not isinstance(registration, dict):
                continue
            kind, name = str(registration.get("kind")), str(registration.get("name"))
            api = str(registration.get("api") or "")
            apis.add(api)
            items.append(Item(kind, name, entry.ecosystem, {"api": api}))
            sources.setdefault((kind, name), str(registration.get("source") or ""))
        for call in observation.calls:
            api = str(call.get("api"))
            if api not in apis:
                items.append(Item("api", api, entry.ecosystem, {"api": api}))
                sources.setdefault(("api", api), str(call.get("source") or ""))
        for probe in record.get("probes") or []:
            if isinstance(probe, dict):
                api = str(probe.get("api"))
                items.append(Item("api", api, entry.ecosystem, {"api": api, "probe": True}))
                sources.setdefault(("api", api), str(probe.get("source") or ""))
    else:
        items += [
            Item("hook", event, entry.ecosystem, {"api": "events"})
            for event in register.events or []
        ]
    seen = {(item.kind, item.name) for item in items}
    items += [
        Item(kind, name, entry.ecosystem, {})
        for kind, name in sorted(registered)
        if (kind, name) not in seen
    ]
    own = knowledge.get(entry.ecosystem)
    for item in items:
        key = (item.kind, item.name)
        source, _, line = sources.get(key, "").rpartition(":")
        found_line = int(line) if line.isdigit() else None
        where = source if found_line else sources.get(key) or "register"
        observed.items.append(Found(item, where, found_line, Evidence.OBSERVED))
        if own is not None:
            observed.gateway[key] = _observed_support(own, entry, item, key in registered, reported)


def _observed_support(
    own: HostKnowledge,
    entry: CatalogEntry,
    item: Item,
    registered: bool,
    reported: list[dict[str, Any]],
) -> Support:
    """The documented answer, corrected by what the load showed: registered tools and
    commands run; a runtime diagnostic naming the item gives the code and reason."""
    known = own.gateway_support(entry, item)
    api = str(item.detail.get("api") or "")
    names = {item.name, api} - {""}
    said = next((d for d in reported if d.get("contribution") in names and d.get("code")), None)
    if item.kind in _REGISTERED:
        if registered:
            return (
                known
                if known.status in (Status.RUNS, Status.PARTIAL)
                else Support(Status.RUNS, _codes.RUNS.code, "registered")
            )
        if said is not None:
            return Support(Status.UNSUPPORTED, str(said["code"]), str(said.get("message", "")))
        return Support(
            known.status, _codes.NOT_REGISTERED.code, f"called, but not registered: {known.reason}"
        )
    if said is not None and known.status is not Status.RUNS:
        return Support(known.status, str(said["code"]), str(said.get("message", "")))
    return known


def _diagnostic(entry: CatalogEntry, item: dict[str, Any]) -> Diagnostic | None:
    code = catalogue().get(str(item.get("code")))
    if code is None:
        return None
    contribution = item.get("contribution")
    return code(
        str(item.get("message", "")),
        package=entry.id,
        contribution=str(contribution) if contribution is not None else None,
    )
