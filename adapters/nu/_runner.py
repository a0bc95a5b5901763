"""How a Nu package's tools run: "every call runs the bundle in a fresh process that can't
read other files. It sees the secrets in secrets as environment variables."

``plan_calls`` turns an installed package into a ``CallPlan``: one ``CallTool`` per
bundled tool, its prompt commands (``client.commands``) and its skills. Each call is a new
Node running ``sidecars/nu-tool.mjs`` (as ``--eval``, so it is no file the tool could
read) on the tool's bundle under Node's permission model:

- ``--permission`` with ``--allow-fs-read`` of the bundle and the call's private folder,
  ``--allow-fs-write`` of that folder alone: no other file can be read or written;
- no ``--allow-child-process``, ``--allow-worker``, ``--allow-addons``, ``--allow-wasi``:
  spawning a process, a worker thread, a native addon or WASI fails inside the tool.

The tool receives ``(args, config)`` — ``config`` is the package's settings, limited to
the keys it lists — and sees only the secrets its ``tool.yaml`` declares (plus the locale
and time zone, and ``HOME`` / ``TMPDIR`` set to its private folder). ``safe_to_retry``
calls are retried once after a crash; ``at_most_once`` calls are journaled.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from adapters._sidecars import sidecar_dir
from adapters.nu import _codes as codes
from adapters.nu._bundle import BUNDLES_DIR, Bundles, read_bundles
from gateway.base import Diagnostic, find_code
from gateway.model import CallPlan, CallTool, CatalogEntry, Contribution, PromptCommand, SkillFile
from gateway.packages import PackageConfigError, package_settings, read_package_config
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.runtime import MIN_SIDECAR_NODE, find_node, node_env_dir, private_node_env
from gateway.sandbox import node_runtime_paths

__all__ = ["RUNNER", "TIMEOUT_VARIABLE", "nu_config", "plan_calls", "tool_command", "tool_node"]

RUNNER: Final = "nu-tool.mjs"
TIMEOUT_VARIABLE: Final = "GATEWAY_NU_TOOL_TIMEOUT"
"""Seconds one tool call may take (default 60)."""
DEFAULT_TIMEOUT: Final = 60.0
CAPABILITIES: Final = ("network",)
"""What a Nu tool can do to the host: it reads and writes no file but its own, runs no
process; the network is not closed by Node's permission model."""


def tool_node(home: Path | None = None) -> str | None:
    """The Node binary a call runs (the private environment's shim resolved to the binary
    it execs: one process per call, not a shell and then a Node)."""
    node = find_node(MIN_SIDECAR_NODE, home)
    if node is None:
        return None
    env_dir = node_env_dir(home)
    record = private_node_env(env_dir)
    real = record.get("node") if record else None
    if real and Path(node) == env_dir / "bin" / "node" and Path(real).is_file():
        return real
    return node


def tool_command(node: str, runner: str, bundle: Path) -> list[str]:
    """The command of one call; ``{scratch}`` is its private folder (``CallTool``)."""
    return [
        node,
        "--permission",
        f"--allow-fs-read={bundle}",
        "--allow-fs-read={scratch}",
        "--allow-fs-write={scratch}",
        "--input-type=module",
        "--eval",
        runner,
        str(bundle),
    ]


def _timeout() -> float:
    raw = os.environ.get(TIMEOUT_VARIABLE, "")
    try:
        return float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT


def nu_config(entry: CatalogEntry, home: Path) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The package's settings as its tools and extensions see them (``nu.config``): the
    keys it lists, from ``GATEWAY_HOME/config/<id>.json``."""
    try:
        own, _ = package_settings(read_package_config(home, entry.id))
    except PackageConfigError as error:
        return {}, [codes.NU_MANIFEST_INVALID(f"{entry.id}: its settings: {error}")]
    return {k: v for k, v in own.items() if k in entry.config_keys}, []


def _secrets(entry: CatalogEntry, home: Path) -> tuple[dict[str, str], list[Diagnostic]]:
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError as error:
        return {}, [codes.NU_SECRET_UNSET(f"{entry.id}: its secrets cannot be read: {error}")]
    found = [
        codes.NU_SECRET_UNSET(
            f"{entry.id}: secret {name} is not set",
            package=entry.id,
            contribution=name,
            hint=f"gateway secret set {entry.id} {name}",
        )
        for name in entry.secrets
        if name not in stored
    ]
    return {k: v for k, v in stored.items() if k in entry.secrets}, found


def _repeat(entry: CatalogEntry, tool: Contribution, bundles: Bundles | None) -> Diagnostic:
    """Why a tool has no bundle, as the install said (or that it was never bundled)."""
    refusal = bundles.refused.get(tool.name) if bundles is not None else None
    code = find_code(refusal.get("code", "")) if refusal else None
    if refusal and code is not None:
        return code(refusal.get("message", ""), package=entry.id, contribution=tool.name)
    return codes.NU_TOOL_NOT_BUNDLED(
        f"{tool.detail.get('path')}: tool {tool.name!r} has no bundle; not offered",
        package=entry.id,
        contribution=tool.name,
        hint="install the package again with `gateway install`",
    )


def plan_calls(entry: CatalogEntry, home: Path) -> CallPlan:
    root = Path(entry.root)
    config, found = nu_config(entry, home)
    secrets, unset = _secrets(entry, home)
    found += unset
    bundles = read_bundles(root)
    node = tool_node(home)
    try:
        runner = (sidecar_dir() / RUNNER).read_text(encoding="utf-8")
    except OSError:
        runner = ""
    missing_runtime = None
    if node is None:
        missing_runtime = "no Node >= 22.19 to run it (gateway setup)"
    elif not runner:
        missing_runtime = f"the gateway's {RUNNER} is missing (reinstall the gateway)"
    tools: list[CallTool] = []
    for tool in entry.contributions:
        if tool.kind != "tool" or not tool.detail.get("valid") or tool.detail.get("refused"):
            continue  # inspection reported it
        record = bundles.tools.get(tool.name) if bundles is not None else None
        if record is None:
            found.append(_repeat(entry, tool, bundles))
            continue
        declared = [str(s) for s in tool.detail.get("secrets") or []]
        unset_names = [name for name in declared if name not in secrets]
        unavailable = missing_runtime
        if unavailable is None and unset_names:
            names = ", ".join(unset_names)
            unavailable = f"secret {names} is not set (gateway secret set {entry.id} NAME)"
        idempotency = tool.detail.get("idempotency")
        tools.append(
            CallTool(
                name=tool.name,
                description=tool.description,
                input_schema=dict(tool.detail.get("args_schema") or {"type": "object"}),
                command=tool_command(node or "node", runner, root / BUNDLES_DIR / record.file),
                env={name: secrets[name] for name in declared if name in secrets},
                payload={"config": config},
                timeout=_timeout(),
                retry_on_crash=idempotency == "safe_to_retry",
                at_most_once=idempotency == "at_most_once",
                capabilities=CAPABILITIES,
                display=tool.detail.get("display"),
                unavailable=unavailable,
                ecosystem="nu",
                reads=tuple(node_runtime_paths(node)) if node else (),
            )
        )
    commands = [
        PromptCommand(c.name, c.description, str(c.detail["message"]), "{args}")
        for c in entry.contributions
        if c.kind == "command" and isinstance(c.detail.get("message"), str)
    ]
    skills = [
        SkillFile(c.name, c.description, root / str(c.detail["path"]))
        for c in entry.contributions
        if c.kind == "skill" and c.detail.get("path")
    ]
    return CallPlan(tools, commands, skills, [_owned(d, entry.id) for d in found])


def _owned(diagnostic: Diagnostic, package: str) -> Diagnostic:
    return diagnostic if diagnostic.package else replace(diagnostic, package=package)
