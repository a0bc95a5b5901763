"""Wire models: every message of the spec, both directions."""

from __future__ import annotations

import json

import pytest

from gateway.wire import (
    CancelMessage,
    CommandRequest,
    EventRequest,
    InitializeMessage,
    MessageError,
    RegisterMessage,
    ResponseMessage,
    ShutdownMessage,
    ToolRequest,
    UiRequest,
    UiResponse,
    UpdateMessage,
    encode,
    parse_extension_message,
)


def test_host_messages_encode_as_the_spec_shows():
    lines = [
        encode(InitializeMessage(workspace="/w", session_id="1")),
        encode(ToolRequest(id="7", name="save_note", arguments={"text": "x", "none": None})),
        encode(CommandRequest(id="3", name="note", arguments="")),
        encode(EventRequest(id="9", event="tool_call", payload={"tool": "bash", "arguments": {}})),
        encode(CancelMessage(id="7")),
        encode(UiResponse(id="q1", answer="staging", cancelled=False)),
        encode(ShutdownMessage()),
    ]
    assert all(line.endswith(b"\n") and line.count(b"\n") == 1 for line in lines)
    decoded = [json.loads(line) for line in lines]
    assert decoded == [
        {"type": "initialize", "version": 1, "workspace": "/w", "session_id": "1"},
        {"type": "tool", "id": "7", "name": "save_note", "arguments": {"text": "x", "none": None}},
        {"type": "command", "id": "3", "name": "note", "arguments": ""},
        {
            "type": "event",
            "id": "9",
            "event": "tool_call",
            "payload": {"tool": "bash", "arguments": {}},
        },
        {"type": "cancel", "id": "7"},
        {"type": "ui_response", "id": "q1", "answer": "staging", "cancelled": False},
        {"type": "shutdown"},
    ]


def test_register_requires_commands():
    with pytest.raises(MessageError, match="commands"):
        parse_extension_message({"type": "register"})


def test_register_accepts_the_spec_example():
    message = parse_extension_message(
        {
            "type": "register",
            "commands": [{"name": "note", "description": "Append a note to NOTES.md"}],
            "tools": [
                {
                    "name": "save_note",
                    "description": "Save a note about the current work.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"text": {"type": "string"}},
                        "required": ["text"],
                    },
                    "capabilities": ["read"],
                }
            ],
            "events": ["tool_call", "tool_result"],
        }
    )
    assert isinstance(message, RegisterMessage)
    assert message.tools[0].effective_capabilities == ("read",)


@pytest.mark.parametrize("missing", ["name", "description", "input_schema"])
def test_register_tool_needs_name_description_and_schema(missing):
    tool = {"name": "t", "description": "d", "input_schema": {"type": "object"}}
    del tool[missing]
    with pytest.raises(MessageError, match=missing):
        parse_extension_message({"type": "register", "commands": [], "tools": [tool]})


def test_register_rejects_unknown_capabilities():
    tool = {"name": "t", "description": "d", "input_schema": {}, "capabilities": ["read", "fly"]}
    with pytest.raises(MessageError, match="fly"):
        parse_extension_message({"type": "register", "commands": [], "tools": [tool]})


def test_register_rejects_an_input_schema_that_is_not_a_json_schema():
    tool = {"name": "t", "description": "d", "input_schema": {"type": 12}}
    with pytest.raises(MessageError, match="input_schema"):
        parse_extension_message({"type": "register", "commands": [], "tools": [tool]})


def test_register_events_must_be_strings():
    with pytest.raises(MessageError, match="events"):
        parse_extension_message({"type": "register", "commands": [], "events": ["ok", 1]})


def test_register_tools_may_be_null():
    message = parse_extension_message({"type": "register", "commands": [], "tools": None})
    assert message.tools is None


def test_response_reads_every_field_of_the_reply_table():
    message = parse_extension_message(
        {
            "type": "response",
            "id": "9",
            "content": "c",
            "is_error": True,
            "message": "m",
            "prompt": "p",
            "allow": False,
            "reason": "r",
            "arguments": {"a": 1},
            "output": "o",
            "instruction": "i",
            "compaction": {"summary": "s", "first_kept_index": 2, "details": [1]},
            "status": {"key": "k", "text": "t"},
            "widget": {"key": "w", "lines": ["l"], "placement": ""},
            "notification": {"level": "warning", "message": "n"},
            "entry": {"x": 1},
        }
    )
    assert isinstance(message, ResponseMessage)
    assert (message.content, message.is_error, message.message, message.prompt) == (
        "c",
        True,
        "m",
        "p",
    )
    assert (message.allow, message.reason, message.arguments, message.output) == (
        False,
        "r",
        {"a": 1},
        "o",
    )
    assert message.instruction == "i" and message.compaction.first_kept_index == 2
    assert message.status.text == "t" and message.widget.lines == ["l"]
    assert message.notification.level == "warning" and message.entry == {"x": 1}


def test_entry_null_is_told_apart_from_no_entry():
    assert parse_extension_message({"type": "response", "id": "1", "entry": None}).has_entry
    assert not parse_extension_message({"type": "response", "id": "1"}).has_entry


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "response", "id": 9},
        {"type": "response", "id": "1", "content": 3},
        {"type": "response", "id": "1", "allow": "no"},
        {"type": "response", "id": "1", "arguments": []},
        {"type": "response", "id": "1", "compaction": {"summary": "s"}},
        {"type": "update", "status": {"key": "k"}},
        {"type": "ui_request", "method": "question"},
        {"type": "mystery"},
        [],
        "text",
        3,
    ],
)
def test_invalid_extension_messages_raise_message_error(bad):
    with pytest.raises(MessageError):
        parse_extension_message(bad)


def test_update_and_ui_request_parse():
    update = parse_extension_message({"type": "update", "widget": {"key": "a", "lines": []}})
    ask = parse_extension_message(
        {
            "type": "ui_request",
            "id": "q1",
            "method": "question",
            "prompt": "Which?",
            "options": ["a", "b"],
        }
    )
    assert isinstance(update, UpdateMessage) and update.widget.lines == []
    assert isinstance(ask, UiRequest) and ask.options == ["a", "b"]


def test_unknown_fields_from_extensions_are_ignored():
    message = parse_extension_message({"type": "response", "id": "1", "future_field": True})
    assert message.id == "1"
