"""The nanobot-compatible classes served when nanobot-ai is not installed, in process:
upstream's Tool contract (casting, validation, schema, decorator, ToolResult), AgentHook's
no-op points and the records hooks and commands receive."""

from __future__ import annotations

from typing import Any

import pytest

from adapters.nanobot.sidecar._commands import CommandRouter, Route, normalize_command
from adapters.nanobot.sidecar._hooks import POINTS, UNMAPPED, implemented_points
from adapters.nanobot.sidecar._shim import (
    SHIM_MODULES,
    AgentHook,
    Tool,
    ToolResult,
    tool_parameters,
)
from adapters.nanobot.sidecar._shim_records import AgentHookContext, InboundMessage
from adapters.nanobot.sidecar._tools import render_result

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1, "maximum": 10},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "name": {"type": ["string", "null"], "minLength": 2, "maxLength": 5},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
        "tags": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
        "nested": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "additionalProperties": False,
        },
    },
    "required": ["count"],
}


@tool_parameters(SCHEMA)
class Sample(Tool):
    @property
    def name(self) -> str:
        return "sample"

    @property
    def description(self) -> str:
        return "a sample tool"

    async def execute(self, **kwargs: Any) -> str:
        return "ok"


def test_tool_is_abstract_until_name_description_parameters_and_execute_exist() -> None:
    class Partial(Tool):
        name = "partial"

    with pytest.raises(TypeError):
        Partial()  # type: ignore[abstract]
    assert Sample().to_schema() == {
        "type": "function",
        "function": {"name": "sample", "description": "a sample tool", "parameters": SCHEMA},
    }


def test_tool_flags_and_plugin_hooks_have_upstream_defaults() -> None:
    tool = Sample()
    assert (tool.read_only, tool.exclusive, tool.concurrency_safe) == (False, False, False)
    assert Sample.config_key == "" and Sample._scopes == {"core"} and Sample.config_cls() is None
    assert Sample.enabled(None) is True and isinstance(Sample.create(None), Sample)


def test_tool_parameters_returns_a_fresh_copy_each_time() -> None:
    tool = Sample()
    tool.parameters["properties"]["count"]["minimum"] = 99
    assert tool.parameters["properties"]["count"]["minimum"] == 1


@pytest.mark.parametrize(
    ("given", "cast"),
    [
        ({"count": "3"}, {"count": 3}),
        ({"count": "x"}, {"count": "x"}),
        ({"ratio": "1.5"}, {"ratio": 1.5}),
        ({"flag": "YES"}, {"flag": True}),
        ({"flag": "0"}, {"flag": False}),
        ({"flag": "maybe"}, {"flag": "maybe"}),
        ({"name": 12}, {"name": "12"}),
        ({"tags": ["1", "2"]}, {"tags": [1, 2]}),
        ({"nested": {"n": "4"}}, {"nested": {"n": 4}}),
        ({"unknown": "5"}, {"unknown": "5"}),
    ],
)
def test_cast_params_makes_only_safe_casts(given: dict, cast: dict) -> None:
    assert Sample().cast_params(given) == cast


@pytest.mark.parametrize(
    ("params", "problems"),
    [
        ({"count": 3}, []),
        ({}, ["missing required count"]),
        ({"count": True}, ["count should be integer"]),
        ({"count": 0}, ["count must be >= 1"]),
        ({"count": 11}, ["count must be <= 10"]),
        ({"count": 1, "name": None}, []),
        ({"count": 1, "name": "x"}, ["name must be at least 2 chars"]),
        ({"count": 1, "name": "toolong"}, ["name must be at most 5 chars"]),
        ({"count": 1, "mode": "medium"}, ["mode must be one of ['fast', 'slow']"]),
        ({"count": 1, "tags": []}, ["tags must have at least 1 items"]),
        ({"count": 1, "tags": [1, 2, 3]}, ["tags must be at most 2 items"]),
        ({"count": 1, "tags": ["a"]}, ["tags[0] should be integer"]),
        ({"count": 1, "nested": {"m": 1}}, ["unexpected parameter nested.m"]),
    ],
)
def test_validate_params_covers_upstreams_schema_subset(params: dict, problems: list) -> None:
    assert Sample().validate_params(params) == problems


def test_validate_params_refuses_non_object_schemas_and_values() -> None:
    assert Sample().validate_params([]) == ["parameters must be an object, got list"]  # type: ignore[arg-type]

    @tool_parameters({"type": "string"})
    class Stringly(Sample):
        pass

    with pytest.raises(ValueError, match="Schema must be object type"):
        Stringly().validate_params({})


def test_tool_result_carries_an_error_flag_and_renders_as_text() -> None:
    assert render_result(ToolResult("fine")) == ("fine", False)
    assert render_result(Tool.error("broken")) == ("broken", True)
    assert render_result({"a": [1]}) == ('{"a": [1]}', False)
    assert render_result(None) == ("", False)


def test_agent_hook_points_are_no_ops_and_reraise_is_kept() -> None:
    hook = AgentHook(reraise=True)
    assert hook._reraise is True and hook.wants_streaming() is False
    assert hook.finalize_content(AgentHookContext(), "text") == "text"
    assert implemented_points(hook) == set()

    class Custom(AgentHook):
        async def before_execute_tool(self, *args: Any) -> None: ...
        def finalize_content(self, context: Any, content: str | None) -> str | None:
            return content

    assert implemented_points(Custom()) == {"before_execute_tool", "finalize_content"}
    assert set(POINTS).isdisjoint(UNMAPPED)


def test_records_take_upstream_fields_positionally_or_by_name() -> None:
    message = InboundMessage("gateway", "user", "s1", "/x")
    assert message.session_key == "gateway:s1" and message.media == []
    assert AgentHookContext(2).iteration == 2 and AgentHookContext().tool_calls == []
    assert AgentHookContext().tool_calls is not AgentHookContext().tool_calls
    with pytest.raises(TypeError, match="missing required argument 'content'"):
        InboundMessage("gateway", "user", "s1")
    with pytest.raises(TypeError, match="unexpected arguments"):
        AgentHookContext(bogus=1)


def test_the_shim_module_tree_covers_what_packages_import() -> None:
    assert {"nanobot.agent.tools.base", "nanobot.agent.hook", "nanobot.bus.events",
            "nanobot.command.router", "nanobot.providers.base"} <= set(SHIM_MODULES)  # fmt: skip
    assert Tool.__module__ == "nanobot.agent.tools.base"
    assert AgentHook.__module__ == "nanobot.agent.hook"


@pytest.mark.parametrize(
    ("command", "prefix", "key", "gateway_name"),
    [
        ("/review", False, "/review", "review"),
        ("Review", False, "/review", "review"),
        ("/review", True, "/review ", "review"),
        ("/git log", True, "/git log ", "git"),
        (" /Git Status ", False, "/git status", "git"),
    ],
)
def test_command_names_are_normalized_like_nanobot(
    command: str, prefix: bool, key: str, gateway_name: str
) -> None:
    assert normalize_command(command, prefix) == key
    assert Route("p", key, print, prefix).gateway_name == gateway_name


def test_prefixes_match_longest_first_and_case_insensitively() -> None:
    router = CommandRouter()
    for key in ("/a ", "/a bc ", "/a b "):
        router.add(Route("p", key, print, True))
    router.add(Route("p", "/a", print, False))
    assert [r.key for r in router.prefixes] == ["/a bc ", "/a b ", "/a "]
    matched = router.match("/A BC Rest")
    assert matched is not None and (matched[0].key, matched[1]) == ("/a bc ", "Rest")
    assert router.match("/a") is not None and router.match("/a")[0].prefix is False  # type: ignore[index]
    assert router.match("/b") is None
