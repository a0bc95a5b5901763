"""The plugin host: a Python sidecar that runs one package's stdio MCP servers and its Claude
Code command hooks behind the nimlet protocol (``_command_hooks``: hooks.json on the
gateway's hook chain)."""
