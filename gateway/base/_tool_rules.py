"""How the tools of one runtime take their names, by the rules of its ecosystem: nimlet's
(a built-in name is refused; of two extensions, the later wins) unless its adapter says
otherwise (Pi: a built-in name is free unless the embedding agent registered that tool; of
two packages of the ecosystem, the first wins)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NIMLET_TOOL_RULES", "ToolRules"]


@dataclass(frozen=True, slots=True)
class ToolRules:
    ecosystem: str = "nimlet"
    """Whose rules: ``first_wins`` applies between tools of the same ecosystem."""
    builtin_names_free: bool = False
    """False (nimlet): a name in ``BUILTIN_TOOL_NAMES`` is refused whether or not the agent
    registered that tool. True: only a built-in the embedding agent registered keeps its name
    (the agent's tool wins, with a diagnostic naming both)."""
    first_wins: bool = False
    """Of two tools of one name from packages of this ecosystem, the one registered first
    (startup order) keeps it; False: the later one (nimlet)."""


NIMLET_TOOL_RULES = ToolRules()
