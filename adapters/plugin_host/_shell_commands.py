"""The slash commands with ``!`` shell lines a Claude Code plugin ships, served by its plugin
host: each is registered as a command of the package, and when it is used its lines run
here, as children of this process (``sh -c``, in a process group of their own, killed
whole at their timeout or their output limit: ``_hook_process``), so inside the package's
own sandbox and grants, never the gateway's. The prompt is rendered by Claude Code's rules
(``adapters.claude_plugins.render_command``).

A line runs in the workspace the ``command`` request names (``context.workspace``; the
host's working directory otherwise), with the environment a hook gets:
``CLAUDE_PLUGIN_ROOT``, ``CLAUDE_PLUGIN_DATA``, ``CLAUDE_PROJECT_DIR`` over the host's own.
Its stdin is empty.

Configuration (``commands`` in the host's file, written by ``adapters/claude_plugins/
_launch.py``): ``[{"name", "description", "body", "arguments": [names], "rules": [rule or
null]}]``, and ``shell_timeout`` (seconds per line).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from adapters.claude_plugins import (
    DEFAULT_TIMEOUT,
    OUTPUT_LIMIT,
    LineRun,
    ShellCommand,
    render_command,
)
from adapters.plugin_host._config import ConfigError
from adapters.plugin_host._hook_process import run_hook_command

__all__ = ["ShellCommands", "read_shell_commands"]


def read_shell_commands(raw: object) -> list[ShellCommand]:
    """The configuration's ``commands``; ``ConfigError`` when it is not the shape above."""
    if not isinstance(raw, list):
        raise ConfigError("commands must be a list")
    found = []
    for index, item in enumerate(raw):
        where = f"commands[{index}]"
        if not isinstance(item, dict):
            raise ConfigError(f"{where} must be an object")
        name, description, body = item.get("name"), item.get("description", ""), item.get("body")
        names, rules = item.get("arguments", []), item.get("rules", [])
        if not isinstance(name, str) or not name or not isinstance(body, str):
            raise ConfigError(f"{where} needs a name and a body")
        if not isinstance(description, str):
            raise ConfigError(f"{where}.description must be a string")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"{where}.arguments must be a list of strings")
        if not isinstance(rules, list) or not all(r is None or isinstance(r, str) for r in rules):
            raise ConfigError(f"{where}.rules must be a list of strings or nulls")
        options = item.get("options", {})
        if not isinstance(options, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in options.items()
        ):
            raise ConfigError(f"{where}.options must be an object of strings")
        found.append(
            ShellCommand(name, description, body, tuple(names), tuple(rules), dict(options))
        )
    return found


class ShellCommands:
    def __init__(
        self,
        commands: list[ShellCommand],
        *,
        root: str,
        data_dir: str,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.commands = {command.name: command for command in commands}
        self._root, self._data_dir, self._timeout = root, data_dir, timeout

    def specs(self) -> list[dict[str, Any]]:
        """Their ``register`` entries."""
        return [{"name": c.name, "description": c.description} for c in self.commands.values()]

    async def run(
        self, name: str, arguments: str, context: object
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reply to a ``command`` request, and the diagnostics of its lines."""
        command = self.commands[name]
        workspace = context.get("workspace") if isinstance(context, Mapping) else None
        cwd = workspace if isinstance(workspace, str) and os.path.isabs(workspace) else None
        cwd = cwd or os.getcwd()
        env = {**os.environ, "CLAUDE_PLUGIN_ROOT": self._root,
               "CLAUDE_PLUGIN_DATA": self._data_dir, "CLAUDE_PROJECT_DIR": cwd}  # fmt: skip

        async def run_line(line: str) -> LineRun:
            run = await run_hook_command(
                line, b"", seconds=self._timeout, cwd=cwd, env=env, limit=OUTPUT_LIMIT
            )
            return LineRun(run.exit_code, run.stdout, run.stderr, run.failure, run.overflow)

        rendered = await render_command(command, arguments, run_line, root=self._root)
        problems = [
            {"code": d.code, "message": d.message, "contribution": name}
            for d in rendered.diagnostics
        ]
        return {"prompt": rendered.prompt}, problems
