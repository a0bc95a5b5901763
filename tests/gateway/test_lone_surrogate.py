"""``lone_surrogate``: the one check every manifest reader runs on what it parsed."""

from __future__ import annotations

from gateway.base import lone_surrogate


def test_a_lone_surrogate_is_found_in_a_key_or_a_value_and_shown_escaped() -> None:
    assert lone_surrogate({"name": ["ok", {"k\ud800": 1}]}) == "k\\ud800"
    assert lone_surrogate({"name": ["ok", "v\udfff"]}) == "v\\udfff"
    assert lone_surrogate({"name": ["ok", "fine"]}) is None


def test_shared_values_are_read_once_so_an_alias_bomb_is_cheap() -> None:
    # What a YAML alias bomb parses to: ten references to one list per level, 10**30 paths.
    level: list[object] = ["x"] * 10
    for _ in range(30):
        level = [level] * 10
    assert lone_surrogate({"top": level}) is None
    level.append("\ud800")  # the one shared list, reached once, is still read
    assert lone_surrogate({"top": level}) == "\\ud800"


def test_a_cycle_ends() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    assert lone_surrogate(cycle) is None
