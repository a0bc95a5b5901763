"""How the tools of one runtime take their names, by the rules of its ecosystem: nimlet's
(a built-in name is refused; of two extensions, the later wins) unless its adapter says
otherwise (Pi: a built-in name is free unless the embedding agent registered that tool; of
two packages of the ecosystem, the first tool wins and every duplicate command is kept with
a load-order suffix). The same rules name commands, which collide by them too."""

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
    """Of two tools of one name from packages of this ecosystem, the earlier in load order
    keeps it; False: the later one (nimlet)."""
    command_suffixes: bool = False
    """Two or more commands of one name from packages of this ecosystem are all kept, as
    ``/name:1``, ``/name:2`` in load order (Pi); False: the later one wins (nimlet)."""


NIMLET_TOOL_RULES = ToolRules()
