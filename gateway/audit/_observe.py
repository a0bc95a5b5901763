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

import importlib.util
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import anyio

from gateway.audit import _codes
from gateway.audit._assemble import Observed
from gateway.audit._conversation import converse
from gateway.audit._model import Observation, PackageAudit
from gateway.audit._registration import read_register
from gateway.audit._support import HostKnowledge
from gateway.base import GatewayConfig
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec
from gateway.packages import load_adapters, remove_tree
from gateway.runtime import child_environment, resolve_command
from gateway.sandbox import (
    PackageGrants,
    detect_support,
    missing_protections,
    node_runtime_paths,
    package_sandbox,
    python_runtime_paths,
)

__all__ = ["RECORD_VARIABLE", "observe"]

RECORD_VARIABLE = "GATEWAY_SIDECAR_RECORD"
START_LIMIT = 120.0
"""Seconds to wait for ``register`` (a cold TypeScript compile is slow)."""


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
        conversation = await converse(entry, command, env, workspace, sandbox.policy, log, limit)
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
        read_register(entry, conversation.register, knowledge, observed, package.observation)
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
