"""The host's side of pinned tool definitions (``gateway.packages._pins``): every tool an
installed package registers passes here on its way into the registry — at start, from the
registration cache, and on a runtime's mid-session tool list — and a tool whose definition
differs from the one pinned since the package was trusted is held back, with
``tool.definition_changed`` naming what changed."""

from __future__ import annotations

from gateway.host._codes import TOOL_DEFINITION_CHANGED
from gateway.host._state import GatewayState
from gateway.model import ToolEntry
from gateway.packages import ToolPins

__all__ = ["PinGate"]


class PinGate:
    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._pins: dict[str, ToolPins] = {}
        self._said: set[tuple[str, str, str]] = set()

    def forget(self) -> None:
        """Pins are read again (the extensions restart; a trust may have reset them)."""
        self._pins.clear()

    def admit(self, owner: str, tools: list[ToolEntry]) -> list[ToolEntry]:
        """``tools`` without those whose definition changed since they were pinned; the
        rest pinned when new."""
        state = self._state
        package = state.package_of(owner)
        if not tools or package not in {status.id for status in state.packages}:
            return tools
        pins = self._pins.get(package)
        if pins is None:
            pins = self._pins[package] = ToolPins(state.config.home, package)
        admitted: list[ToolEntry] = []
        new: dict[str, tuple[str, object]] = {}
        for tool in tools:
            pinned = pins.tools.get(tool.name)
            if pinned is None:
                new[tool.name] = (tool.description, tool.input_schema)
                admitted.append(tool)
                continue
            changed = pinned.differences(tool.name, tool.description, tool.input_schema)
            if not changed:
                if not pinned.complete:  # restored from a lockfile: now known in full
                    new[tool.name] = (tool.description, tool.input_schema)
                admitted.append(tool)
                continue
            said = (package, tool.name, "; ".join(changed))
            if said not in self._said:  # a later listing of the same change is not news
                self._said.add(said)
                state.diagnostics.add(
                    TOOL_DEFINITION_CHANGED(
                        f"{package}: tool {tool.name!r} changed since {package} was trusted "
                        f"({said[2]}); held back",
                        package=package,
                        contribution=tool.name,
                        hint=f"read the new definition, then: gateway trust {package}",
                    )
                )
        if new:
            pins.pin(new)
        return admitted
