"""The plugin host: a Python sidecar, one process per package, that starts the package's
stdio MCP servers as its children (so they inherit its sandbox) with a lean MCP client of
its own (``_stdio_client``; the official ``mcp`` SDK's client for remote servers and as a
fallback) and offers their tools, prompts and resources as the package's tools and
commands, and runs hooks (``_command_hooks``: hooks.json on the gateway's hook chain, by
Claude Code's protocol, which Codex shares — command, http and mcp_tool hooks — or Gemini
CLI's). Started as ``python -P -m adapters.plugin_host --config FILE`` as
``adapters/_host_plan.py`` plans it for Agent Plugins, Claude Code plugins, Codex plugins and
Gemini CLI extensions (docs/architecture.md, "The plugin host's launch").

The names below are what the adapters that plan its launch read (its configuration, its
hooks, its remote servers); they load on first use, so the process still loads only what it
uses.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False

if TYPE_CHECKING:
    from adapters.plugin_host._config import (
        config_path,
        response_timeout,
        start_timeout,
        write_config,
    )
    from adapters.plugin_host._gemini_hook_config import (
        GEMINI_EVENT_OF,
        GEMINI_UNSUPPORTED_EVENTS,
        read_gemini_hooks,
    )
    from adapters.plugin_host._hook_config import (
        EVENT_OF,
        HOOK_KINDS,
        UNSUPPORTED_EVENTS,
        HttpHook,
        McpToolHook,
        read_hooks,
    )
    from adapters.plugin_host._mcp_tool_hooks import own_server
    from adapters.plugin_host._naming import SCHEME
    from adapters.plugin_host._remote_plan import RemotePlan, plan_remote
    from adapters.plugin_host._remote_spec import (
        network_grant,
        remote_contribution,
        remote_permissions,
        remote_secrets,
        url_problem,
    )

_WHERE: dict[str, str] = {
    "EVENT_OF": "adapters.plugin_host._hook_config",
    "GEMINI_EVENT_OF": "adapters.plugin_host._gemini_hook_config",
    "GEMINI_UNSUPPORTED_EVENTS": "adapters.plugin_host._gemini_hook_config",
    "HOOK_KINDS": "adapters.plugin_host._hook_config",
    "HttpHook": "adapters.plugin_host._hook_config",
    "McpToolHook": "adapters.plugin_host._hook_config",
    "network_grant": "adapters.plugin_host._remote_spec",
    "own_server": "adapters.plugin_host._mcp_tool_hooks",
    "RemotePlan": "adapters.plugin_host._remote_plan",
    "SCHEME": "adapters.plugin_host._naming",
    "UNSUPPORTED_EVENTS": "adapters.plugin_host._hook_config",
    "config_path": "adapters.plugin_host._config",
    "plan_remote": "adapters.plugin_host._remote_plan",
    "read_gemini_hooks": "adapters.plugin_host._gemini_hook_config",
    "read_hooks": "adapters.plugin_host._hook_config",
    "remote_contribution": "adapters.plugin_host._remote_spec",
    "remote_permissions": "adapters.plugin_host._remote_spec",
    "remote_secrets": "adapters.plugin_host._remote_spec",
    "response_timeout": "adapters.plugin_host._config",
    "start_timeout": "adapters.plugin_host._config",
    "url_problem": "adapters.plugin_host._remote_spec",
    "write_config": "adapters.plugin_host._config",
}

__all__ = [
    "EVENT_OF",
    "GEMINI_EVENT_OF",
    "GEMINI_UNSUPPORTED_EVENTS",
    "HOOK_KINDS",
    "SCHEME",
    "UNSUPPORTED_EVENTS",
    "HttpHook",
    "McpToolHook",
    "RemotePlan",
    "config_path",
    "network_grant",
    "own_server",
    "plan_remote",
    "read_gemini_hooks",
    "read_hooks",
    "remote_contribution",
    "remote_permissions",
    "remote_secrets",
    "response_timeout",
    "start_timeout",
    "url_problem",
    "write_config",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
