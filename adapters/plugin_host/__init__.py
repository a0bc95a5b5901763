"""The plugin host: one nimlet-protocol process per Agent Plugin that starts the plugin's
stdio MCP servers as its children (so they inherit its sandbox) with the official ``mcp``
SDK's client, and offers their tools, prompts and resources as the plugin's tools and
commands. Started as ``python -P -m adapters.plugin_host --config FILE`` (docs/agent-plugins.md).

Nothing is imported here: the process loads only what it uses.
"""
