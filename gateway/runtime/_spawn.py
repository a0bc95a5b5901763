"""Spawning children: allow-listed environment, own process group, interpreter choice, killing.

Shared by long-running extensions and per-call tools so both kill whole process trees the
same way.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterable, Mapping
from pathlib import Path

from gateway.base import GatewayError
from gateway.runtime.node import bundled_node_dir

ALLOWED_ENVIRONMENT: tuple[str, ...] = (
    "HOME",
    "LOGNAME",
    "USER",
    "PATH",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
)
"""Variables every child sees (when the host has them). Anything else must be passed through
explicitly: ``GatewayConfig.passthrough_env`` or the ``GATEWAY_PASSTHROUGH_ENV`` variable."""

_INTERPRETERS: dict[str, tuple[tuple[str, ...], ...]] = {
    # Each suffix lists candidate interpreters, first found wins.
    ".sh": (("bash",), ("sh",)),
    ".ps1": (("pwsh", "-NoProfile", "-File"), ("powershell", "-NoProfile", "-File")),
    ".cmd": (("cmd", "/c"), ("cmd.exe", "/c")),
    ".bat": (("cmd", "/c"), ("cmd.exe", "/c")),
}
_WINDOWS_PYTHON: tuple[tuple[str, ...], ...] = (("py",), ("python",))
"""Windows runs no shebang: current nimlet starts a ``.py`` with the ``py`` launcher, else
``python``."""


class LaunchError(GatewayError):
    """The command cannot be started as given (missing interpreter, not executable)."""


def child_environment(
    passthrough: Iterable[str] = (),
    extra: Mapping[str, str] | None = None,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The allow-listed environment for a child, plus named pass-through variables."""
    source = os.environ if source is None else source
    env: dict[str, str] = {}
    for name in (*ALLOWED_ENVIRONMENT, *passthrough):
        value = source.get(name)
        # Exported bash functions ("() { …") are code, not configuration.
        if value is not None and not value.startswith("()"):
            env[name] = value
    bundled = bundled_node_dir()
    if bundled is not None:
        path = env.get("PATH")
        env["PATH"] = f"{path}{os.pathsep}{bundled}" if path else str(bundled)
    if extra:
        env.update(extra)
    return env


def resolve_command(command: list[str], folder: Path, path_env: str | None) -> list[str]:
    """Resolve ``command[0]`` the way nimlet does and pick an interpreter for scripts.

    A first element containing ``/`` (or a backslash, for manifests written on Windows: current
    nimlet) is relative to the extension folder (unless absolute); one without is looked up
    on PATH at exec time. On Windows a ``.py`` script runs through ``py`` or ``python``.
    """
    program, *rest = command
    if ("/" in program or "\\" in program) and not os.path.isabs(program):
        program = str((folder / program).resolve())
    suffix = Path(program).suffix.lower()
    candidates = _INTERPRETERS.get(suffix)
    if candidates is None and suffix == ".py" and os.name == "nt":
        candidates = _WINDOWS_PYTHON
    if candidates is None:
        return [program, *rest]
    for interpreter in candidates:
        found = shutil.which(interpreter[0], path=path_env)
        if found is not None:
            return [found, *interpreter[1:], program, *rest]
    names = " or ".join(candidate[0] for candidate in candidates)
    raise LaunchError(f"{Path(program).name} needs {names}, which is not on PATH")


def signal_group(pgid: int, signum: int) -> bool:
    """Send a signal to a whole process group; False when the group is already gone."""
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def group_alive(pgid: int) -> bool:
    return signal_group(pgid, 0)


def kill_group(pgid: int) -> None:
    signal_group(pgid, signal.SIGKILL)
