"""How a Claude Code plugin with hooks or MCP servers starts: the plugin host
(``adapters/_host_plan.py``), one process per plugin, running its stdio servers, its remote
servers and its hooks (``hooks.json``: command, http, mcp_tool) on the gateway's hook
chain; the servers' tools named as Claude Code names a plugin's MCP tools,
``mcp__plugin_<plugin>_<server>__<tool>`` (``tool_names: "claude"``).

Claude Code's own rules (its plugins reference): ``${CLAUDE_PLUGIN_ROOT}`` and
``${CLAUDE_PLUGIN_DATA}`` are substituted in a server's ``command``, ``args``, ``env`` and
``cwd`` (the installed folder and the package's data folder; the reference's own example
names a server's ``command`` by ``${CLAUDE_PLUGIN_ROOT}``); other ``${VAR}`` references are
passed as written (the gateway never hands its environment to a package). The hook commands
get both in their environment, where the shell expands them.

The slash commands with ``!`` shell lines are the plugin host's too (``commands`` in its
configuration: the body as installed, the ``arguments`` names, the ``allowed-tools`` Bash
rules): it runs their lines in the plugin's sandbox when they are used
(``adapters.plugin_host._shell_commands``), for at most ``GATEWAY_SHELL_LINE_TIMEOUT``
seconds each (default 20). The programs the lines name are readable there, as a hook's are.

The plugin's options (``userConfig``, ``_user_config``): their values fill
``${user_config.KEY}`` in the servers and are ``CLAUDE_PLUGIN_OPTION_<KEY>`` in the host's
environment and each server's; a required one without a value refuses the launch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection
from adapters._host_plan import plan_plugin_host
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._commands import argument_names
from adapters.claude_plugins._remote import fill_url
from adapters.claude_plugins._shell_lines import bash_rules, shell_lines
from adapters.claude_plugins._shell_render import DEFAULT_TIMEOUT, TIMEOUT_VARIABLE
from adapters.claude_plugins._user_config import (
    ENV_PREFIX,
    REFERENCE,
    env_references,
    option_values,
)
from adapters.plugin_host import HOOK_KINDS
from gateway.base import Diagnostic, environment_seconds
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec, parse_front_matter
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.sandbox import package_dirs

__all__ = ["plan_plugin", "with_option_urls"]

_ROOT, _DATA = "${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_PLUGIN_DATA}"
TOOL_NAMES: Final = "claude"


def plan_plugin(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal | None:
    data, _ = package_dirs(home, entry.id)
    options = dict(entry.metadata.get("user_config") or {})
    values, missing = option_values(entry.id, options, home) if options else ({}, [])
    if missing:
        keys = ", ".join(d.contribution or "?" for d in missing)
        return LaunchRefusal(
            f"plugin options without a value: {keys}",
            hint=missing[0].hint or f"gateway config {entry.id}",
            diagnostics=[d if d.package else _of(d, entry.id) for d in missing],
        )
    exported = {ENV_PREFIX + key.upper(): value for key, value in values.items()}
    unknown: list[Diagnostic] = []
    servers = {
        name: _expand(server, entry.root, str(data), values, exported, unknown, entry.id, name)
        for name, server in dict(entry.metadata.get("mcp_servers") or {}).items()
    }
    shown = {k: v for k, v in values.items() if not options.get(k, {}).get("sensitive")}
    commands = shell_commands(entry, shown)
    lines = [line for command in commands for line in shell_lines(command["body"])]
    hooks = entry.metadata.get("hooks")
    if options:
        # A remote header's option is read from the host's environment, as a secret is.
        # A url's option (non-sensitive, in its path or query: checked at inspection) is
        # filled here.
        entry = with_option_urls(entry, values)
        remote = {
            name: {**server, "headers": env_references(server.get("headers") or {})}
            for name, server in dict(entry.metadata.get("remote_servers") or {}).items()
        }
        entry = replace(entry, metadata={**entry.metadata, "remote_servers": remote})
    return plan_plugin_host(
        entry,
        home,
        servers,
        tool_names=TOOL_NAMES,
        hooks=env_references(hooks) if options else hooks,
        hook_types=HOOK_KINDS,
        diagnostics=unknown,
        env={**exported, **_hook_secrets(entry, home)},  # the host's: its hooks read them
        remote=True,
        commands=commands,
        shell_lines=lines,
        shell_timeout=environment_seconds(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT,
        not_found=lambda name, command: codes.CLAUDE_COMMAND_NOT_FOUND(
            f"MCP server {name!r}: command {command!r} is neither a file nor on PATH",
            package=entry.id,
            contribution=name,
        ),
    )


def shell_commands(
    entry: CatalogEntry, options: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """The plugin host's ``commands``: each slash command with ``!`` lines, read from the
    installed plugin (one unreadable since inspection is left out: ``inspect`` says why);
    ``options``: the values of its non-sensitive options, for ``${user_config.KEY}``."""
    inspection = Inspection(Path(entry.root))
    found = []
    for contribution in entry.contributions:
        rel = contribution.detail.get("path")
        if contribution.kind != "prompt" or not contribution.detail.get("shell_lines"):
            continue
        text = inspection.read_text(str(rel)) if isinstance(rel, str) else None
        if text is None:
            continue
        front = parse_front_matter(text)
        body = front.body.strip("\n")
        first = next((line.strip() for line in body.splitlines() if line.strip()), "")
        found.append({
            "name": contribution.name,
            "description": contribution.description or first[:100],
            "body": body,
            "arguments": list(argument_names(front.data)),
            "rules": bash_rules(front.data.get("allowed-tools")),
            "options": dict(options or {}),
        })  # fmt: skip
    return found


def with_option_urls(entry: CatalogEntry, values: Mapping[str, str]) -> CatalogEntry:
    """``entry`` with its remote servers' urls filled from the option ``values``."""
    remote = {
        name: {**server, "url": fill_url(str(server["url"]), values)}
        for name, server in dict(entry.metadata.get("remote_servers") or {}).items()
    }
    return replace(entry, metadata={**entry.metadata, "remote_servers": remote})


def _hook_secrets(entry: CatalogEntry, home: Path) -> dict[str, str]:
    """The stored values of the variables the http hooks' headers take (``allowedEnvVars``):
    the package's secrets, in the host's environment, where the headers are filled."""
    names = [str(n) for n in entry.metadata.get("hook_secrets") or []]
    if not names:
        return {}
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError:
        return {}  # unreadable secrets: the headers go out empty, as Claude Code's unset ones
    return {name: stored[name] for name in names if name in stored}


def _of(diagnostic: Diagnostic, package: str) -> Diagnostic:
    return replace(diagnostic, package=package)


def _expand(
    server: Mapping[str, Any],
    root: str,
    data: str,
    values: Mapping[str, str],
    exported: Mapping[str, str],
    unknown: list[Diagnostic],
    package: str,
    name: str,
) -> dict[str, Any]:
    def option(match: re.Match[str]) -> str:
        key = match.group(1)
        if key in values:
            return values[key]
        unknown.append(
            codes.USER_CONFIG_INVALID(
                f"MCP server {name!r} names ${{user_config.{key}}}, an option the plugin does "
                "not declare or that has no value; kept as written",
                package=package,
                contribution=name,
            )
        )
        return match.group(0)

    def text(value: str) -> str:
        return REFERENCE.sub(option, value.replace(_ROOT, root).replace(_DATA, data))

    env = {k: text(v) for k, v in dict(server.get("env", {})).items()}
    return {
        "command": text(server["command"]),
        "args": [text(a) for a in server.get("args", [])],
        # The SDK starts a server with a few safe variables and its own `env`: the options
        # go there too, as Claude Code exports them to the plugin's processes.
        "env": {**exported, **env},
        "cwd": text(server["cwd"]) if server.get("cwd") else None,
    }
