"""Running the tools an install needs (git, npm): an allow-listed environment, their own
session, no terminal, a time limit, and a one-line error when they fail."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from .._spawn import child_environment

__all__ = ["FetchError", "run_tool", "tool_environment"]


class FetchError(Exception):
    """The source cannot be fetched; ``str()`` says why in one line."""


def tool_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = child_environment()
    env.update(
        GIT_TERMINAL_PROMPT="0",
        GIT_CONFIG_NOSYSTEM="1",
        # file: is for local repository paths; file:// URLs are refused before this.
        GIT_ALLOW_PROTOCOL="https:http:ssh:git:file",
    )
    env.update(extra or {})
    return env


def run_tool(
    command: list[str],
    cwd: Path | None,
    what: str,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
) -> str:
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=tool_environment(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise FetchError(f"{what}: {command[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise FetchError(f"{what}: timed out after {timeout:g}s") from None
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise FetchError(f"{what} failed: {detail[-1] if detail else f'exit {done.returncode}'}")
    return done.stdout
