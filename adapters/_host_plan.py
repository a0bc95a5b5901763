"""The plugin host's launch, one plan for every format it hosts (Agent Plugins, Claude Code
plugins, Codex plugins, Gemini CLI extensions): one process per package
(``python -P -m adapters.plugin_host --config FILE``), its configuration written under
``GATEWAY_HOME/plugin_host/`` (``adapters.plugin_host._config``).

What differs by format is given by the adapter's ``_launch``: the servers with the format's
own placeholders already expanded and the environment its host gives them, how its host
names their tools (``tool_names``), the diagnostic for a command that is not there, its
hooks, whether it has remote servers, the longest a call may take by its own settings.
The rest is the gateway's rule for all of them (docs/architecture.md, "The plugin host's
launch"):

- **commands** are resolved when the launch is planned (``./path`` inside the package, an
  absolute path to a file, a bare name on the gateway's ``PATH``), and the server runs
  exactly the file found: the sandbox's reads are computed from it. A command that is not
  there is the format's diagnostic, and that server fails to start, the others run;
- **working directory**: none given is the package's folder; a relative one is under the
  package's folder; one in the package's data folder is made (a sandbox rule needs it); one
  naming the workspace (Gemini's ``${workspacePath}``) is filled by the host at its start;
- **environment**: ``PYTHONDONTWRITEBYTECODE=1`` over the server's own (bytecode written
  into the installed package would change its content hash and revoke its trust);
- **reads**: the gateway's Python and sources, the configuration, and what running each
  program the servers and hooks name needs (``gateway.runtime.program_reads``: the program,
  its script's interpreter, the venv or installation it belongs to — never the user's home
  itself, the gateway's home or a toolchain's credential files);
- **timeouts**: each reply ``GATEWAY_PLUGIN_HOST_TIMEOUT`` (default 30 s), widened to the
  format's longest call and to the longest hook plus 5 s (an event waits for its slowest
  hook); the start: ``GATEWAY_PLUGIN_HOST_START_TIMEOUT`` + 15 s (the host registers once
  every server has started or failed, each bounded);
- **programs** (the registration cache's key): the bare commands and what the hooks run.

Also the stored values of the secrets a package declares (Gemini's ``settings``, Codex's
``env_vars``), which reach its servers' environments and nothing else.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from adapters._host_reads import find_command, hook_programs, line_programs, missing_command_hint
from adapters.plugin_host import (
    RemotePlan,
    config_path,
    plan_remote,
    read_gemini_hooks,
    read_hooks,
    response_timeout,
    start_timeout,
    write_config,
)
from gateway.base import Diagnostic, private_dir
from gateway.model import CatalogEntry, LaunchSpec
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.runtime import program_reads
from gateway.sandbox import package_dirs, python_runtime_paths

__all__ = [
    "HOST_COMMAND",
    "SOURCE_ROOT",
    "config_file",
    "find_command",
    "plan_plugin_host",
    "stored_secrets",
]

HOST_COMMAND: Final = (sys.executable, "-P", "-m", "adapters.plugin_host")
"""``-P``: the workspace (the working directory) is not on ``sys.path``."""
SOURCE_ROOT: Final = Path(__file__).resolve().parents[1]
"""Where ``adapters`` and ``gateway`` are imported from (site-packages, or a checkout)."""
HOOK_MARGIN: Final = 5.0


def config_file(home: Path, package_id: str) -> Path:
    """Where a package's host configuration is (``adapters.plugin_host._config``)."""
    return config_path(home, package_id)


def stored_secrets(
    entry: CatalogEntry, home: Path, missing: Callable[[str], Diagnostic]
) -> tuple[dict[str, str], list[Diagnostic]]:
    """The values stored (``gateway secret set``) for the secrets ``entry`` declares, and a
    diagnostic (``missing(name)``) for each one that has none."""
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError as error:
        return {}, [missing(f"its secrets cannot be read: {error}")]
    values = {name: stored[name] for name in entry.secrets if name in stored}
    return values, [missing(name) for name in entry.secrets if name not in stored]


def plan_plugin_host(
    entry: CatalogEntry,
    home: Path,
    servers: Mapping[str, Mapping[str, Any]],
    *,
    tool_names: str,
    not_found: Callable[[str, str], Diagnostic],
    diagnostics: Sequence[Diagnostic] = (),
    hooks: dict[str, Any] | None = None,
    hook_types: Sequence[str] = ("command",),
    hook_protocol: str = "claude",
    remote: bool = False,
    longest_call: float = 0.0,
    commands: Sequence[Mapping[str, Any]] = (),
    shell_lines: Sequence[str] = (),
    shell_timeout: float = 0.0,
    env: Mapping[str, str] | None = None,
    workspace_variable: str | None = None,
) -> LaunchSpec | None:
    """``servers``: name → ``{command, args, env, cwd?, include_tools?, exclude_tools?}``
    with the format's placeholders expanded; ``not_found(server, command)`` says a command
    is missing; ``hooks``: a ``hooks.json`` object the host runs on the gateway's hook
    chain, by ``hook_protocol`` (``claude``: Claude Code's, Codex's; ``gemini``: Gemini
    CLI's, command hooks only), of the types ``hook_types`` (Claude Code's: ``command``,
    ``http``, ``mcp_tool``); ``remote``: connect the entry's ``remote_servers``
    (``adapters.plugin_host._remote_plan``); ``commands``: slash commands the host serves,
    running their ``shell_lines`` (``adapters.plugin_host._shell_commands``) for at most
    ``shell_timeout`` seconds each; ``env``: the host's own environment beside what its
    remote servers need (its hooks and shell lines inherit it); ``workspace_variable``: a
    placeholder (Gemini's ``${workspacePath}``) left in the servers' ``args``, ``env``,
    ``cwd`` and the hooks for the host to fill with the session's workspace when it starts.
    None when there is nothing to run."""
    planned_remote = plan_remote(entry, home) if remote else RemotePlan()
    if not servers and not hooks and not planned_remote.servers and not commands:
        return None  # skills, commands, context files: the gateway serves them itself
    root = Path(entry.root)
    data, _ = package_dirs(home, entry.id)
    found = [*diagnostics, *planned_remote.diagnostics]
    reads: list[Path] = [*python_runtime_paths(), SOURCE_ROOT]
    resolved: dict[str, dict[str, Any]] = {}
    run: list[str] = []
    for name, server in servers.items():
        command = str(server["command"])
        executable = find_command(command, root)
        if executable is None:
            missing = not_found(name, command)
            hint = missing.hint or missing_command_hint(command)
            found.append(dataclasses.replace(missing, hint=hint))
        else:
            # A bare name is looked up on the user's PATH again there: the user's word, not
            # the package's (a path the package names is held to its own folder).
            run.append(command if "/" not in command else str(executable))
        resolved[name] = {
            **server,
            "command": str(executable) if executable is not None else command,
            **({"missing": True} if executable is None else {}),  # said here, not again there
            "env": {**server.get("env", {}), "PYTHONDONTWRITEBYTECODE": "1"},
            "cwd": _working_directory(server.get("cwd"), root, data, workspace_variable),
        }
    document = {"package": entry.id, "root": str(root), "data_dir": str(data),
                "servers": resolved, "tool_names": tool_names, "hooks": hooks,
                "hook_protocol": hook_protocol, "hook_types": list(hook_types),
                **planned_remote.document}  # fmt: skip
    if commands:
        document |= {"commands": list(commands), "shell_timeout": shell_timeout}
    if workspace_variable:
        document["workspace_variable"] = workspace_variable
    path = write_config(home, entry.id, document)
    server_commands = [str(server["command"]) for server in servers.values()]
    bare = [c for c in server_commands if "/" not in c]
    lines = line_programs(shell_lines, root)
    programs = [*bare, *hook_programs(hooks, root), *lines]
    # What running each needs (gateway.runtime.program_reads): the program, its script's
    # interpreter, the venv or installation it belongs to — never the user's home as such,
    # the gateway's home or a toolchain's credential files.
    reads += program_reads(
        [*run, *hook_programs(hooks, root), *lines], path_env=os.environ.get("PATH"),
        home=Path.home(), guarded=(home,), own=root,
    )  # fmt: skip
    return LaunchSpec(
        command=[*HOST_COMMAND, "--config", str(path)],
        response_timeout=_response_timeout(
            hooks,
            hook_protocol,
            hook_types,
            max(longest_call, shell_timeout + HOOK_MARGIN if commands else 0.0),
        ),
        start_timeout=start_timeout() + 15,
        diagnostics=found,
        reads=tuple(dict.fromkeys([*reads, path])),
        writes=(data, *planned_remote.writes),
        env={**planned_remote.env, **(env or {})},
        # What the servers and hooks run, as found on PATH now: a program installed later
        # starts the package again rather than serving what its last start found. One
        # inside the package is its content.
        programs=tuple(dict.fromkeys(p for p in programs if not _inside(p, root))),
    )


def _working_directory(raw: object, root: Path, data: Path, workspace: str | None) -> str:
    if not isinstance(raw, str) or not raw:
        return str(root)
    if workspace and workspace in raw:
        return raw  # the host fills it in: the session's workspace is known there
    path = root / raw  # an absolute one stays as it is
    if path == data or path.is_relative_to(data):
        private_dir(path)  # a sandbox rule and a working directory need it there
    return str(path)


def _response_timeout(
    hooks: dict[str, Any] | None,
    hook_protocol: str,
    hook_types: Sequence[str],
    longest_call: float,
) -> float | None:
    timeout = response_timeout()
    if timeout is None:
        return None
    found: list[Any] = []
    if hooks and hook_protocol == "gemini":
        found = list(read_gemini_hooks(hooks)[0])
    elif hooks:
        found = list(read_hooks(hooks, hook_types)[0])
    # An event's hooks run at once, or one after another (Gemini's `sequential`).
    sequential = sum(hook.timeout for hook in found if hook.sequential)
    longest_hook = max([sequential, *(hook.timeout for hook in found)], default=0.0)
    waits = [longest_call, longest_hook + HOOK_MARGIN if found else 0.0]
    return max(timeout, *waits)


def _inside(program: str, root: Path) -> bool:
    return program.startswith("./") or (
        os.path.isabs(program) and Path(program).is_relative_to(root)
    )
