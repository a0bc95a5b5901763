"""A tool reply's ``content``: an array of text and image parts (current nimlet) or a string
(the older document), both without a warning; anything else is an error result with
upstream's code and message."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from gateway import open_gateway

from .conftest import reply, script, tool

pytestmark = pytest.mark.anyio

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n....").decode()


async def call(workspace: Any, current: Any, content: Any) -> Any:
    current("ext", tools=[tool("t")])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(*reply(content=content)))
        return result, list(gateway.diagnostics)


async def test_text_parts_are_joined_and_images_kept_as_parts(workspace, current) -> None:
    content = [
        {"type": "text", "text": "first"},
        {"type": "image", "mimeType": "image/png", "data": PNG},
        {"type": "text", "text": "second"},
    ]
    result, diagnostics = await call(workspace, current, content)
    assert not result.is_error and result.error_code is None
    assert result.content == "first\nsecond"
    assert result.parts == [
        {"type": "text", "text": "first"},
        {"type": "image", "mime_type": "image/png", "data": PNG},
        {"type": "text", "text": "second"},
    ]
    assert [d.code for d in diagnostics if d.severity.value != "info"] == []


async def test_an_image_path_is_resolved_inside_the_workspace(workspace, current) -> None:
    (workspace.root / "shot.png").write_bytes(b"\x89PNG")
    result, _ = await call(
        workspace, current, [{"type": "image", "mimeType": "image/png", "path": "shot.png"}]
    )
    assert result.parts == [
        {
            "type": "image",
            "mime_type": "image/png",
            "path": str(workspace.root.resolve() / "shot.png"),
        }
    ]
    assert result.content == ""


async def test_a_string_content_keeps_working_without_a_warning(workspace, current) -> None:
    result, diagnostics = await call(workspace, current, "plain text")
    assert (result.content, result.is_error, result.parts) == ("plain text", False, None)
    assert [d.code for d in diagnostics if d.severity.value != "info"] == []


async def test_another_part_type_is_upstreams_error(workspace, current) -> None:
    content = [{"type": "text", "text": "x"}, {"type": "audio", "data": "AAAA"}]
    result, diagnostics = await call(workspace, current, content)
    assert result.is_error and not result.blocked
    assert result.error_code == "invalid_extension_result"
    assert result.content == "extension tool content supports text and image parts"
    assert "tool.invalid_result" in [d.code for d in diagnostics]


@pytest.mark.parametrize(
    ("part", "problem"),
    [
        ({"type": "image", "data": PNG}, "needs a mimeType"),
        ({"type": "image", "mimeType": "image/png"}, "needs data or a path"),
        ({"type": "image", "mimeType": "image/png", "data": "not base64!"}, "not base64"),
        ({"type": "image", "mimeType": "image/png", "path": "../../etc/passwd"}, "outside"),
        ({"type": "text", "text": 7}, "string text"),
    ],
)
async def test_malformed_parts_are_error_results(workspace, current, part, problem) -> None:
    result, diagnostics = await call(workspace, current, [part])
    assert result.is_error and result.error_code == "invalid_extension_result"
    assert problem in result.content
    assert "tool.invalid_result" in [d.code for d in diagnostics]


async def test_a_rewritten_output_keeps_the_images(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    current("rewriter", subscribe=["tool_result"], events={"tool_result": reply(output="NEW")})
    workspace.grant("rewriter", "hooks.rewrite")  # it changes another extension's result
    content = [
        {"type": "text", "text": "old"},
        {"type": "image", "mimeType": "image/png", "data": PNG},
    ]
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("t", script(*reply(content=content)))
    assert result.content == "NEW"
    assert result.parts == [
        {"type": "text", "text": "NEW"},
        {"type": "image", "mime_type": "image/png", "data": PNG},
    ]


async def test_the_tool_result_hook_and_session_see_the_joined_text(workspace, current) -> None:
    log = current("observer", subscribe=["tool_result"])
    current("ext", tools=[tool("t")])
    content = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("t", script(*reply(content=content)))
        saved = [e for e in gateway.session.entries if e["type"] == "tool_result"]
    events = [m for m in workspace.received("observer") if m["type"] == "event"]
    assert events[0]["payload"]["output"] == "a\nb"
    assert saved[0]["output"] == "a\nb"
    assert log.exists()
