"""Whether a hook may change a tool's call or result (``hooks.rewrite``,
``gateway.packages._rewrites``): decided here, in the gateway's hook chain, where the owner
of the tool and the owner of each hook are known.

A hook of the package that owns the tool may (its own hook chains keep working); a hook of
any other package may only with ``hooks.rewrite`` granted — for another package's tool,
for the agent's own tools (``register_builtin_tool``) and for the tools of the host in
front of ``serve --nimlet`` alike. The package of a registry owner is the id its grants are
kept under (``GatewayState.package_of``): an installed package's id (a shared process's
members each their own), ``pi:NAME`` / ``openclaw:ID`` for a discovered extension,
``nimlet:NAME`` for a discovered ``extension.json`` extension.
"""

from __future__ import annotations

from typing import Any

from gateway.base import Diagnostic
from gateway.host._planning import extension_grants
from gateway.host._state import GatewayState
from gateway.model import HookEntry, RewriteCheck, ToolEntry
from gateway.packages import HOOKS_REWRITE, rewrite_refused

__all__ = ["RewriteGate"]


class RewriteGate:
    """Answers the ``rewrite`` check of ``tool_call`` / ``tool_result`` dispatch; reads a
    discovered extension's grants from the store once per load
    (``GatewayState.discovered_grants``, renewed with the permissions)."""

    def __init__(self, state: GatewayState) -> None:
        self._state = state

    def check(self, event: str, payload: dict[str, Any], tool: ToolEntry | None) -> RewriteCheck:
        """The check for one dispatch of ``event`` about ``tool`` (None: the registry's
        tool of the payload's name, if any)."""
        state = self._state
        name = payload.get("tool")
        name = name if isinstance(name, str) else ""
        if tool is None and name:
            tool = state.registry.tool(name)
        tool_package = None if tool is None or tool.builtin else state.package_of(tool.owner)
        if tool_package is not None:
            owned = f"a tool of {tool_package}"
        elif tool is not None:
            owned = "one of the agent's own tools"
        else:
            owned = "a tool the gateway does not serve"

        def may(hook: HookEntry, fields: list[str]) -> Diagnostic | None:
            package = state.package_of(hook.owner)
            if package == tool_package or HOOKS_REWRITE in self.granted(package):
                return None
            return rewrite_refused(hook.owner, package, event, name, fields, owned)

        return may

    def granted(self, package: str) -> frozenset[str]:
        """What the user granted ``package``: an installed package's grants, else the
        store's grants of a discovered extension by its id."""
        for status in self._state.packages:
            if status.id == package:
                return status.package.granted
        known = self._state.discovered_grants
        if package not in known:
            found = extension_grants(self._state.config.home, [package])
            known[package] = found.get(package, frozenset())
        return known[package]
