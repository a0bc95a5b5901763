"""The plugin host: a Python sidecar, one process per package, that starts the package's
stdio MCP servers as its children (so they inherit its sandbox) with the official ``mcp``
SDK's client and offers their tools, prompts and resources as the package's tools and
commands, and runs Claude Code command hooks (``_command_hooks``: hooks.json on the gateway's
hook chain). Started as ``python -P -m adapters.plugin_host --config FILE`` by the Agent
Plugins and Claude Code plugin adapters (docs/agent-plugins.md, docs/claude-plugins.md).

Nothing is imported here: the process loads only what it uses.
"""
