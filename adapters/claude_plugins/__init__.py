"""Claude Code plugins as an input ecosystem (``claude``): ``.claude-plugin/plugin.json``,
commands, skills, hooks and MCP servers (docs/claude-plugins.md).

Beside the adapter, what the plugin host uses to serve a command with ``!`` shell lines
(``render_command``: it supplies the runner). The names load on first use, so the plugin
host loads only the renderer."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False

if TYPE_CHECKING:
    from adapters.claude_plugins._shell_render import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
    from adapters.claude_plugins._shell_render import OUTPUT_LIMIT as OUTPUT_LIMIT
    from adapters.claude_plugins._shell_render import TIMEOUT_VARIABLE as TIMEOUT_VARIABLE
    from adapters.claude_plugins._shell_render import LineRun as LineRun
    from adapters.claude_plugins._shell_render import Rendered as Rendered
    from adapters.claude_plugins._shell_render import ShellCommand as ShellCommand
    from adapters.claude_plugins._shell_render import render_command as render_command
    from adapters.claude_plugins.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.claude_plugins.adapter import ClaudePluginsAdapter as ClaudePluginsAdapter


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
