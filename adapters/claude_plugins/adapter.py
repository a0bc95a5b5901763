"""Claude Code plugins (``.claude-plugin/plugin.json``): slash commands and skills served
by the gateway itself (``package_resources``); command hooks (``hooks.json``) and stdio
MCP servers (``.mcp.json``) run in the plugin host, one process per plugin
(``_launch``); subagents and the components a headless host has no place for are
listed and reported, never run. See docs/claude-plugins.md."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters.claude_plugins._commands import package_resources
from adapters.claude_plugins._dependencies import package_requirements
from adapters.claude_plugins._inspect import ECOSYSTEM, inspect_plugin, is_claude_plugin
from adapters.claude_plugins._launch import plan_plugin, with_option_urls
from adapters.claude_plugins._marketplace import select_plugin
from adapters.claude_plugins._user_config import option_values
from adapters.plugin_host import signing
from gateway.model import (
    CatalogEntry,
    DiscoveredLaunch,
    Discovery,
    LaunchRefusal,
    LaunchSpec,
    SignedIn,
    SignInPrompt,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.claude_plugins._audit import ClaudeAudit

__all__ = ["ECOSYSTEM", "ClaudePluginsAdapter"]


class ClaudePluginsAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> ClaudeAudit:
        """What the gateway does with a plugin's contributions, for ``gateway audit``."""
        from adapters.claude_plugins._audit import ClaudeAudit  # for `gateway audit` only

        return ClaudeAudit()

    def detect(self, root: Path) -> bool:
        return is_claude_plugin(root)

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_plugin(root)

    # install MARKETPLACE#PLUGIN (gateway.model.OffersPackages): a marketplace's plugin.
    select_offered = staticmethod(select_plugin)
    # ... and the plugins it names in `dependencies` (gateway.model.RequiresPackages).
    package_requirements = staticmethod(package_requirements)

    # gateway auth (gateway.model.SignsIn): the remote MCP servers a person signs in to.
    remote_servers = staticmethod(signing.remote_servers)

    async def sign_in(
        self, entry: CatalogEntry, home: Path, server: str, prompt: SignInPrompt
    ) -> SignedIn:
        """Signed in to the url the plugin host connects to: its options filled."""
        options = dict(entry.metadata.get("user_config") or {})
        values, _ = option_values(entry.id, options, home) if options else ({}, [])
        return await signing.sign_in(with_option_urls(entry, values), home, server, prompt)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal | None:
        """The plugin host when the plugin has hooks or stdio MCP servers; None for one of
        commands and skills only (the gateway serves them itself)."""
        if entry.runtime != "python-sidecar":
            return None
        return plan_plugin(entry, home)

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        """Its skills (listed) and slash commands (expanded by Claude Code's rules)."""
        return package_resources(entry)

    def configured_resources(self, entry: CatalogEntry, home: Path) -> Discovery:
        """The same, its commands filling ``${user_config.KEY}`` from its non-sensitive
        options (gateway.model.ServesConfiguredResources)."""
        return package_resources(entry, home)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # Claude's own plugin folders are Claude's; install a plugin to use it
