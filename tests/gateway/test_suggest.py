"""Did you mean: near misses of a typed name among the known ones, the same on every run."""

from __future__ import annotations

import pytest

from gateway.base import did_you_mean, suggest

TOOLS = ["mcp_glossary_lookup", "mcp_glossary_define", "review_code", "style_guide",
         "mcp__plugin_notes_srv__search"]  # fmt: skip


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("lookup", ["mcp_glossary_lookup"]),  # the tool as its MCP server names it
        ("search", ["mcp__plugin_notes_srv__search"]),  # a Claude-style rename
        ("mcp_glossary_lookp", ["mcp_glossary_lookup"]),  # a typo, not its neighbours
        ("Review_Code", ["review_code"]),  # another case
        ("reviw_code", ["review_code"]),
        ("nothing_like_it", []),
    ],
)
def test_a_near_miss_suggests_the_name(typed: str, meant: list[str]) -> None:
    assert suggest(typed, TOOLS) == meant


def test_a_prefix_typed_by_hand_finds_the_name_it_ends_with() -> None:
    assert suggest("claude-dev-environment-setup", ["dev-environment-setup", "other"]) == [
        "dev-environment-setup"
    ]


def test_the_order_does_not_depend_on_the_candidates_order() -> None:
    names = ["note-b", "note-a", "note-c"]
    assert suggest("note", names) == suggest("note", list(reversed(names))) == sorted(names)


def test_the_exact_name_is_never_suggested_and_the_message_suffix_is_empty_without_one() -> None:
    assert suggest("style_guide", TOOLS) == []
    assert did_you_mean("zzz", TOOLS) == ""
    assert did_you_mean("lookup", TOOLS) == " (did you mean mcp_glossary_lookup?)"
