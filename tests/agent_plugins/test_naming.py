"""Gateway names for MCP tools follow released nanobot 0.3's scheme."""

from __future__ import annotations

import hashlib

from adapters.plugin_host._naming import host_name, mcp_name


def test_a_single_server_is_named_after_the_plugin() -> None:
    assert host_name("acme.tools", "db", 1) == "acme.tools"
    assert host_name("acme.tools", "db", 2) == "acme.tools--db"


def test_tools_resources_and_prompts_get_nanobots_prefixes() -> None:
    assert mcp_name("acme", "query") == "mcp_acme_query"
    assert mcp_name("acme", "docs", "resource") == "mcp_acme_resource_docs"
    assert mcp_name("acme", "review", "prompt") == "mcp_acme_prompt_review"


def test_characters_outside_the_tool_alphabet_become_one_underscore() -> None:
    assert mcp_name("acme.tools--db", "a b/c") == "mcp_acme_tools--db_a_b_c"
    assert mcp_name("x", "__y__") == "mcp_x_y_"


def test_a_long_name_is_cut_with_a_sha1_suffix() -> None:
    name = mcp_name("p", "t" * 80)
    full = "mcp_p_" + "t" * 80
    assert len(name) == 64
    assert name == f"{full[:55]}_{hashlib.sha1(full.encode()).hexdigest()[:8]}"


def test_prompt_arguments_by_name_by_position_and_the_rest_to_the_last() -> None:
    from mcp import types

    from adapters.plugin_host._registry import prompt_arguments

    prompt = types.Prompt(name="p", arguments=[
        types.PromptArgument(name="topic", required=True), types.PromptArgument(name="tone"),
    ])  # fmt: skip
    assert prompt_arguments(prompt, "cats tone=kind") == ({"topic": "cats", "tone": "kind"}, None)
    assert prompt_arguments(prompt, "cats very kind") == ({"topic": "cats", "tone": "very kind"},
                                                          None)  # fmt: skip
    assert prompt_arguments(prompt, 'tone=x "big cats"') == ({"tone": "x", "topic": "big cats"},
                                                             None)  # fmt: skip
    values, problem = prompt_arguments(prompt, "tone=x")
    assert values == {} and problem is not None and "missing topic" in problem
    single = types.Prompt(name="s", arguments=[types.PromptArgument(name="text", required=True)])
    assert prompt_arguments(single, "a b=c d") == ({"text": "a b=c d"}, None)


def test_the_claude_scheme_names_as_claude_code_names_plugin_servers() -> None:
    from adapters.plugin_host._naming import namer

    names = namer("claude", "my.plugin", "db server", 3)
    assert names("run query") == "mcp__plugin_my_plugin_db_server__run_query"
    assert names("review", "prompt") == "mcp__plugin_my_plugin_db_server__review"
    assert names("docs", "resource") == "mcp__plugin_my_plugin_db_server__resource_docs"
