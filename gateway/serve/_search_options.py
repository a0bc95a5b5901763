"""How ``gateway serve --mcp`` uses tool search (``--tool-search``, ``--pin``): kept apart
from the search itself so that opening a server costs no MCP import."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["CALL_TOOL", "DEFAULT_THRESHOLD", "SEARCH_TOOLS", "Mode", "ToolSearchOptions"]

Mode = Literal["auto", "on", "off"]
SEARCH_TOOLS: Final = "search_tools"
CALL_TOOL: Final = "call_tool"
"""The meta-tools' names (``gateway.host.meta_names`` moves them off a real tool's)."""
DEFAULT_THRESHOLD: Final = 40
"""``auto``: search replaces the list for a caller that may use more tools than this."""


@dataclass(frozen=True, slots=True)
class ToolSearchOptions:
    mode: Mode = "auto"
    threshold: int = DEFAULT_THRESHOLD
    pins: tuple[str, ...] = ()
    """Package ids (every tool of the package) or tool names always listed."""

    def instructions(self) -> str:
        """What ``initialize`` says about tool search (the listing comes later, so ``auto``
        says when it applies)."""
        how = (
            "tools/list holds only the pinned tools and two meta-tools: call search_tools "
            "with the task in plain words, then call a tool it found by name (or through "
            "call_tool); the tools found join this session's tools/list. (When a tool of the "
            "server is itself called search_tools or call_tool, the meta-tool is "
            "gateway_search_tools or gateway_call_tool.)"
        )
        if self.mode == "on":
            return f" Tool search is on: {how}"
        if self.mode == "auto":
            return f" When more than {self.threshold} tools are offered, tool search is on: {how}"
        return ""
