"""The session: namespaced status and widgets, notifications, durable entries, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import SessionNotFound, open_gateway
from gateway.base import Diagnostics
from gateway.model import Session
from tests._clock import virtual_time  # noqa: F401  (in memory: virtual time)

pytestmark = pytest.mark.anyio


def effects(**fields: Any) -> dict[str, Any]:
    return {"do": "effects", "effects": fields}


def update(**fields: Any) -> dict[str, Any]:
    return {"do": "update", "effects": fields}


def session_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def extension_lines(path: Path) -> list[dict[str, Any]]:
    return [line for line in session_lines(path) if line["type"] == "extension"]


# --------------------------------------------------------------------------- status and widgets


async def test_status_keys_are_namespaced_by_extension(workspace):
    workspace.add_extension("alpha", tools=["a"])
    workspace.add_extension("beta", tools=["b"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("a", effects(status={"key": "job", "text": "alpha working"}))
        await gateway.call_tool("b", effects(status={"key": "job", "text": "beta working"}))
        statuses = dict(gateway.session.statuses)
    assert statuses == {"alpha:job": "alpha working", "beta:job": "beta working"}


async def test_empty_status_text_removes_it(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(status={"key": "job", "text": "busy"}))
        await gateway.call_tool("act", effects(status={"key": "other", "text": "stays"}))
        await gateway.call_tool("act", effects(status={"key": "job", "text": ""}))
        statuses = dict(gateway.session.statuses)
    assert statuses == {"ext:other": "stays"}


async def test_widget_keys_are_namespaced_by_extension(workspace):
    workspace.add_extension("alpha", tools=["a"])
    workspace.add_extension("beta", tools=["b"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("a", effects(widget={"key": "agents", "lines": ["✓ one", "… two"]}))
        await gateway.call_tool("b", effects(widget={"key": "agents", "lines": ["b"]}))
        widgets = dict(gateway.session.widgets)
    assert widgets == {"alpha:agents": ["✓ one", "… two"], "beta:agents": ["b"]}


async def test_empty_widget_lines_remove_it(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(widget={"key": "w", "lines": ["x"]}))
        await gateway.call_tool("act", effects(widget={"key": "keep", "lines": ["y"]}))
        await gateway.call_tool("act", effects(widget={"key": "w", "lines": []}))
        widgets = dict(gateway.session.widgets)
    assert widgets == {"ext:keep": ["y"]}


async def test_update_lines_apply_side_effects(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool(
            "act",
            update(
                status={"key": "job", "text": "researching"},
                widget={"key": "agents", "lines": ["✓ research"]},
                notification={"level": "info", "message": "Research complete"},
                entry={"completed": ["research"]},
            ),
        )
        session = gateway.session
        assert result.content == "updated"
        assert session.statuses == {"ext:job": "researching"}
        assert session.widgets == {"ext:agents": ["✓ research"]}
        assert [(e, n.level, n.message) for e, n in session.notifications] == [
            ("ext", "info", "Research complete")
        ]
        assert session.extension_entries("ext") == [{"completed": ["research"]}]


async def test_notifications_are_recorded_in_order(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(notification={"level": "warning", "message": "one"}))
        await gateway.call_tool("act", update(notification={"level": "custom", "message": "two"}))
        recorded = [(e, n.level, n.message) for e, n in gateway.session.notifications]
    assert recorded == [("ext", "warning", "one"), ("ext", "custom", "two")]


async def test_side_effects_are_reported_to_the_listener(workspace):
    workspace.add_extension("ext")
    seen: list[Any] = []
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        on_effect=seen.append,
    ) as gateway:
        await gateway.call_tool("act", effects(status={"key": "k", "text": "t"}, entry=1))
    assert [(e.kind, e.extension, e.key, e.value) for e in seen] == [
        ("status", "ext", "ext:k", "t"),
        ("entry", "ext", None, 1),
    ]


# --------------------------------------------------------------------------- entries


@pytest.mark.parametrize(
    "data",
    [{"count": 1, "phase": "research"}, None, [1, "two"], "text", 3, False],
    ids=["object", "null", "array", "string", "number", "false"],
)
async def test_entry_is_written_to_the_session_file(workspace, data):
    workspace.add_extension("lifecycle")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(entry=data))
        path = gateway.session.path
    assert extension_lines(path) == [{"type": "extension", "extension": "lifecycle", "data": data}]


async def test_entry_written_from_update_in_node_extension(workspace):
    workspace.add_extension("lifecycle", language="node")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", update(entry={"count": 1}))
        await gateway.call_tool("act", update(entry=None))
        path = gateway.session.path
    assert extension_lines(path) == [
        {"type": "extension", "extension": "lifecycle", "data": {"count": 1}},
        {"type": "extension", "extension": "lifecycle", "data": None},
    ]


async def test_no_entry_field_writes_no_entry(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(status={"key": "k", "text": "t"}))
        path = gateway.session.path
    assert extension_lines(path) == []


async def test_entries_never_appear_in_a_tool_result(workspace):
    workspace.add_extension("ext", events=["tool_result"])
    secret = {"private": "only-for-the-extension"}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        first = await gateway.call_tool("act", effects(entry=secret))
        second = await gateway.call_tool("act", update(entry=secret))
        path = gateway.session.path
    # (The secret is in the arguments only because the scripted extension is told what to
    # store; what the model gets back is the content.)
    assert [(r.content, r.is_error) for r in (first, second)] == [
        ("effects", False),
        ("updated", False),
    ]
    tool_results = [line for line in session_lines(path) if line["type"] == "tool_result"]
    assert [line["output"] for line in tool_results] == ["effects", "updated"]
    hooks = [m["payload"] for m in workspace.received("ext") if m.get("event") == "tool_result"]
    assert [payload["output"] for payload in hooks] == ["effects", "updated"]


async def test_resumed_session_has_entries_back(workspace):
    workspace.add_extension("ext", events=["session_before_compact"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(entry={"n": 1}))
        await gateway.call_tool("act", update(entry=["n", 2]))
        session_id = gateway.session.id
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        session_id=session_id,
    ) as gateway:
        assert gateway.session.id == session_id
        assert gateway.session.extension_entries("ext") == [{"n": 1}, ["n", 2]]
        await gateway.compact()
    initializes = [m for m in workspace.received("ext") if m["type"] == "initialize"]
    assert [m["session_id"] for m in initializes] == [session_id, session_id]
    compact = [m for m in workspace.received("ext") if m.get("event") == "session_before_compact"]
    assert len(compact) == 1
    entries = compact[0]["payload"]["entries"]
    assert [e for e in entries if e["type"] == "extension"] == [
        {"type": "extension", "extension": "ext", "data": {"n": 1}},
        {"type": "extension", "extension": "ext", "data": ["n", 2]},
    ]


async def test_workspace_is_only_on_the_session_header(workspace):
    workspace.add_extension("ext", events=["session_before_compact"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(entry=1))
        await gateway.compact()
        path = gateway.session.path
        session_id = gateway.session.id
    header, *rest = session_lines(path)
    assert header == {
        "type": "session",
        "id": session_id,
        "workspace": str(workspace.root.resolve()),
    }
    assert all(line["type"] != "session" for line in rest)
    payload = next(
        m["payload"]
        for m in workspace.received("ext")
        if m.get("event") == "session_before_compact"
    )
    assert all(entry["type"] != "session" for entry in payload["entries"])


async def test_corrupt_session_line_is_skipped_and_the_rest_loads(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("act", effects(entry={"n": 1}))
        path, session_id = gateway.session.path, gateway.session.id
    with path.open("a") as handle:
        handle.write('{"type": "extension", "extension": "ext", "da\n')
        handle.write("[1, 2]\n")
        handle.write(json.dumps({"type": "extension", "extension": "ext", "data": {"n": 2}}) + "\n")
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        session_id=session_id,
    ) as gateway:
        assert gateway.session.extension_entries("ext") == [{"n": 1}, {"n": 2}]
        corrupt = [d for d in gateway.diagnostics if d.code == "session.file_corrupt"]
        result = await gateway.call_tool("act", {"still": "running"})
    assert len(corrupt) == 2
    assert result.is_error is False


async def test_unknown_session_id_raises_session_not_found(workspace):
    workspace.add_extension("ext")
    with pytest.raises(SessionNotFound):
        async with open_gateway(
            workspace.root,
            trust=True,
            config=workspace.config,
            transport=workspace.transport,
            session_id="1234567890",
        ):
            pass  # pragma: no cover - never reached


@pytest.mark.parametrize("session_id", ["does-not-exist", "../escape", "", "a/b"])
def test_session_resume_refuses_unknown_ids(workspace, session_id):
    Session.create(workspace.config.sessions_dir, workspace.root, "known")
    with pytest.raises(SessionNotFound):
        Session.resume(workspace.config.sessions_dir, session_id, Diagnostics())


def test_session_file_round_trips_entries(workspace):
    directory = workspace.config.sessions_dir
    session = Session.create(directory, workspace.root, "s1")
    session.append({"type": "user", "role": "user", "content": [{"type": "text", "text": "hi"}]})
    session.append({"type": "extension", "extension": "ext", "data": None})
    session.close()
    diagnostics = Diagnostics()
    resumed = Session.resume(directory, "s1", diagnostics)
    assert resumed.entries == session.entries
    assert resumed.workspace == workspace.root
    assert resumed.extension_entries("ext") == [None]
    assert list(diagnostics) == []
