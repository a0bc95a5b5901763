"""Running the tools an install needs (git, npm): the user's network configuration (proxies,
CAs, ``npm_config_*``, ``gateway.runtime.npm``) on top of the allow-list, their own session, no
terminal, a time limit that says what timed out, and the tool's own error lines when it
fails."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from gateway.base import GatewayError
from gateway.runtime import NpmError, npm_environment
from gateway.runtime import run_tool as _run
from gateway.sandbox import SandboxPolicy

__all__ = ["FetchError", "run_tool", "tool_environment"]


class FetchError(GatewayError):
    """The source cannot be fetched; ``str()`` says why (with the tool's own error lines)."""


def tool_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = npm_environment()
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
    timeout: float | None = None,
    policy: SandboxPolicy | None = None,
    require: bool = False,
    waiting: Callable[[str], None] | None = None,
) -> str:
    """The tool's stdout; ``FetchError`` naming what failed, with its error lines;
    ``waiting`` is told when it runs long (``gateway.runtime.run_tool``)."""
    try:
        return _run(
            command, cwd, what, env=tool_environment(env), timeout=timeout, policy=policy,
            require=require, waiting=waiting,
        )  # fmt: skip
    except NpmError as error:
        raise FetchError(str(error)) from None
