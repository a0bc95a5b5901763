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

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False

if TYPE_CHECKING:
    from adapters.plugin_host._config import config_path as config_path
    from adapters.plugin_host._config import response_timeout as response_timeout
    from adapters.plugin_host._config import start_timeout as start_timeout
    from adapters.plugin_host._config import write_config as write_config
    from adapters.plugin_host._gemini_hook_config import GEMINI_EVENT_OF as GEMINI_EVENT_OF
    from adapters.plugin_host._gemini_hook_config import (
        GEMINI_UNSUPPORTED_EVENTS as GEMINI_UNSUPPORTED_EVENTS,
    )
    from adapters.plugin_host._gemini_hook_config import read_gemini_hooks as read_gemini_hooks
    from adapters.plugin_host._hook_config import EVENT_OF as EVENT_OF
    from adapters.plugin_host._hook_config import HOOK_KINDS as HOOK_KINDS
    from adapters.plugin_host._hook_config import UNSUPPORTED_EVENTS as UNSUPPORTED_EVENTS
    from adapters.plugin_host._hook_config import HttpHook as HttpHook
    from adapters.plugin_host._hook_config import McpToolHook as McpToolHook
    from adapters.plugin_host._hook_config import read_hooks as read_hooks
    from adapters.plugin_host._mcp_tool_hooks import own_server as own_server
    from adapters.plugin_host._naming import SCHEME as SCHEME
    from adapters.plugin_host._remote_plan import RemotePlan as RemotePlan
    from adapters.plugin_host._remote_plan import plan_remote as plan_remote
    from adapters.plugin_host._remote_spec import network_grant as network_grant
    from adapters.plugin_host._remote_spec import remote_contribution as remote_contribution
    from adapters.plugin_host._remote_spec import remote_permissions as remote_permissions
    from adapters.plugin_host._remote_spec import remote_secrets as remote_secrets
    from adapters.plugin_host._remote_spec import url_problem as url_problem


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
