"""What a server's results become (``_shapes`` read by hand, ``_content`` mapped to the
nimlet reply), in memory: every content block kind, and results of the wrong shape."""

from __future__ import annotations

import pytest

from adapters.plugin_host._content import prompt_text, resource_text, tool_reply
from adapters.plugin_host._shapes import (
    InvalidResult,
    read_call_result,
    read_prompt,
    read_prompt_result,
    read_resource_result,
)

BLOCKS = [
    {"type": "text", "text": "plain"},
    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    {"type": "audio", "data": "AAAAAAAA", "mimeType": "audio/wav"},
    {"type": "resource", "resource": {"uri": "notes://1", "text": "embedded"}},
    {"type": "resource", "resource": {"uri": "blob://1", "blob": "AAAA"}},
    {"type": "resource_link", "name": "readme", "uri": "file:///readme"},
    {"type": "hologram", "beam": 1},
]


def test_every_content_block_kind_becomes_a_part() -> None:
    reply = tool_reply(read_call_result({"content": BLOCKS, "structuredContent": {"n": 1}}), True)
    assert reply["content"].split("\n") == [
        "plain",
        "[audio (inline) (audio/wav, about 6 bytes)]",
        "embedded",
        "[binary resource blob://1 (application/octet-stream, about 3 bytes)]",
        "[resource link readme: file:///readme]",
        "[unsupported MCP content 'hologram']",
    ]
    assert reply["gateway"]["parts"][1] == {
        "type": "image",
        "data": "AAAA",
        "mime_type": "image/png",
    }
    assert reply["gateway"]["details"] == {"n": 1} and reply["is_error"] is False


@pytest.mark.parametrize(
    "result",
    [
        [],
        {"content": "text"},
        {"content": [{"type": "text"}]},
        {"content": [{"type": "image", "data": "AAAA"}]},
        {"content": [], "structuredContent": [1]},
        {"content": [], "isError": "yes"},
        {"content": [{"type": "resource", "resource": {"uri": "x", "text": "a", "blob": "b"}}]},
    ],
)
def test_a_tool_result_of_the_wrong_shape_is_invalid(result: object) -> None:
    with pytest.raises(InvalidResult):
        read_call_result(result)


def test_prompts_and_resources_are_read_and_checked() -> None:
    messages = [{"role": "user", "content": {"type": "text", "text": "one"}},
                {"role": "assistant", "content": {"type": "text", "text": "two"}}]  # fmt: skip
    assert prompt_text(read_prompt_result({"messages": messages})) == "user: one\n\nassistant: two"
    contents = {"contents": [{"uri": "a://1", "text": "x"}, {"uri": "a://2", "text": "y"}]}
    assert resource_text(read_resource_result(contents)) == "x\ny"
    with pytest.raises(InvalidResult, match="arguments is not a list"):
        read_prompt({"name": "p", "arguments": "who"})
    with pytest.raises(InvalidResult, match="required is not a boolean"):
        read_prompt({"name": "p", "arguments": [{"name": "who", "required": "yes"}]})
    with pytest.raises(InvalidResult, match="messages is not a list"):
        read_prompt_result({"messages": None})
