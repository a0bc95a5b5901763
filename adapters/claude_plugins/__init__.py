"""Claude Code plugins as an input ecosystem (``claude``): ``.claude-plugin/plugin.json``,
commands, skills, hooks and MCP servers (docs/claude-plugins.md).

Beside the adapter, what the plugin host uses to serve a command with ``!`` shell lines
(``render_command``: it supplies the runner). The names load on first use, so the plugin
host loads only the renderer."""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False

if TYPE_CHECKING:
    from adapters.claude_plugins._shell_render import (
        DEFAULT_TIMEOUT,
        OUTPUT_LIMIT,
        TIMEOUT_VARIABLE,
        LineRun,
        Rendered,
        ShellCommand,
        render_command,
    )
    from adapters.claude_plugins.adapter import ECOSYSTEM, ClaudePluginsAdapter

_RENDER = "adapters.claude_plugins._shell_render"
_WHERE: dict[str, str] = {
    "DEFAULT_TIMEOUT": _RENDER,
    "ECOSYSTEM": "adapters.claude_plugins.adapter",
    "ClaudePluginsAdapter": "adapters.claude_plugins.adapter",
    "LineRun": _RENDER,
    "OUTPUT_LIMIT": _RENDER,
    "Rendered": _RENDER,
    "ShellCommand": _RENDER,
    "TIMEOUT_VARIABLE": _RENDER,
    "render_command": _RENDER,
}

__all__ = [
    "DEFAULT_TIMEOUT",
    "ECOSYSTEM",
    "OUTPUT_LIMIT",
    "TIMEOUT_VARIABLE",
    "ClaudePluginsAdapter",
    "LineRun",
    "Rendered",
    "ShellCommand",
    "render_command",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
