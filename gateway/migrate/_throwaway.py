"""The throwaway load: a package started once where it can change nothing that stays, to
see what it registers. ``gateway migrate --load`` uses it; ``gateway audit --load`` needs the
same load (its recording API aside), so this is the one module to share.

- a private ``GATEWAY_HOME`` (the package installed there, every permission it asks for
  granted, trusted, enabled), ``HOME`` and an empty workspace, in a temporary folder that
  is removed afterwards;
- the allow-listed environment, nothing passed through;
- the whole load — the gateway and every runtime it starts — in one child process confined
  before it runs (``gateway.sandbox``): it reads the system, the Python and Node runtimes,
  the gateway's own code and the runtime folders the package's launch plan names; it writes
  only the temporary folder; no network. Everything the child starts inherits that.
- no tool, command or hook is called: the child opens the gateway, lists what registered,
  and closes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, GatewayConfig, GatewayError, Severity, find_code
from gateway.model import LaunchSpec
from gateway.packages import InstallError, evaluate_packages, install, load_adapters
from gateway.runtime import child_environment, find_node
from gateway.sandbox import (
    SANDBOXED_VARIABLE,
    SandboxError,
    SandboxPolicy,
    SandboxUnavailable,
    detect_support,
    node_runtime_paths,
    python_runtime_paths,
    spawn_confined,
    system_policy,
)
from gateway.store import StateStore

__all__ = ["LOAD_TIMEOUT", "LoadFailed", "Loaded", "load_in_throwaway"]

LOAD_TIMEOUT = 180.0
"""Seconds the whole load may take (a sidecar compiling TypeScript on first start)."""
_CODE_ROOT = Path(__file__).resolve().parents[2]
"""Where the ``gateway`` and ``adapters`` packages are imported from."""


class LoadFailed(GatewayError):
    """The load could not be made or did not finish; ``str()`` says why."""


@dataclass(slots=True)
class Loaded:
    """What the package registered: the registry as ``gateway list --json`` shows it."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    commands: list[dict[str, str]] = field(default_factory=list)
    hooks: list[dict[str, str]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    confined: bool = True
    """False: the kernel could not confine it (the private folders were still used)."""


def load_in_throwaway(
    package_root: Path, config: GatewayConfig, timeout: float = LOAD_TIMEOUT
) -> Loaded:
    """Install ``package_root`` (a verified copy) into a throwaway home and load it there,
    confined. Raises ``LoadFailed``, or ``SandboxUnavailable`` when the config requires a
    sandbox this kernel cannot make."""
    with tempfile.TemporaryDirectory(prefix="gateway-throwaway-") as folder:
        scratch = Path(folder).resolve()
        home, workspace, user, tmp = (
            scratch / name for name in ("home", "workspace", "user", "tmp")
        )
        for path in (workspace, user, tmp):
            path.mkdir(mode=0o700)
        package_id, spec = _install_ready(home, package_root)
        node = find_node()
        policy = _policy(scratch, node, spec)
        env = child_environment()
        env.update(HOME=str(user), GATEWAY_HOME=str(home), TMPDIR=str(tmp))
        env[SANDBOXED_VARIABLE] = "1"  # the gateway in there can make no namespaces
        if node:
            env["GATEWAY_NODE"] = node
        argv = [sys.executable, "-m", "gateway.migrate._throwaway_child", str(home),
                str(workspace), str(user), package_id]  # fmt: skip
        support = detect_support()
        try:
            child = spawn_confined(
                argv, policy=policy, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=workspace, env=env, support=support,
                require=config.require_sandbox,
            )  # fmt: skip
        except SandboxUnavailable:
            raise
        except (SandboxError, OSError) as error:
            raise LoadFailed(f"the throwaway load could not start: {error}") from None
        try:
            out, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise LoadFailed(f"the throwaway load took longer than {timeout:g}s") from None
        if child.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
            raise LoadFailed(
                f"the throwaway load exited with {child.returncode}: {' | '.join(tail)}"
            )
        loaded = _parse(out)
        loaded.confined = support.landlock_abi > 0
        return loaded


def _install_ready(home: Path, package_root: Path) -> tuple[str, LaunchSpec | None]:
    try:
        report = install(home, str(package_root), kind="local", inspector=load_adapters().inspect)
    except InstallError as error:
        raise LoadFailed(str(error)) from None
    package_id = report.package.id
    wanted = [p.name for p in report.entry.permissions]
    with StateStore.open(home) as store:
        store.grant(package_id, wanted, wanted)
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    status = next(s for s in evaluate_packages(home, load_adapters()) if s.id == package_id)
    if not status.ready:
        raise LoadFailed(f"{package_id} cannot run here: {'; '.join(status.reasons)}")
    return package_id, status.runtime if isinstance(status.runtime, LaunchSpec) else None


def _policy(scratch: Path, node: str | None, spec: LaunchSpec | None) -> SandboxPolicy:
    """Read the system and the runtimes; write only the throwaway folder; no network."""
    base = system_policy()
    runtime = [*python_runtime_paths(), *node_runtime_paths(node), _CODE_ROOT]
    runtime += _named_folders(spec.command if spec is not None else ())
    return SandboxPolicy().allowing(
        read=base.read,
        execute=[*base.execute, *dict.fromkeys(runtime)],
        write=[*base.write, scratch],
    )


def _named_folders(command: Iterable[str]) -> list[Path]:
    """The folder of each file a launch command names (a sidecar's script, its modules)."""
    found = []
    for arg in command:
        path = Path(arg)
        if path.is_absolute() and path.exists():
            found.append(path if path.is_dir() else path.parent)
    return found


def _parse(out: bytes) -> Loaded:
    try:
        data = json.loads(out)
    except ValueError:
        raise LoadFailed(f"the throwaway load said something else: {out[:200]!r}") from None
    diagnostics = []
    for item in data.get("diagnostics", []):
        code = find_code(str(item.get("code")))
        if code is not None:
            diagnostics.append(
                code(
                    str(item.get("message", "")),
                    package=item.get("package"),
                    contribution=item.get("contribution"),
                    hint=item.get("hint"),
                    severity=Severity(item.get("severity", code.severity.value)),
                )
            )
    return Loaded(
        tools=list(data.get("tools", [])),
        commands=list(data.get("commands", [])),
        hooks=list(data.get("hooks", [])),
        diagnostics=diagnostics,
    )
