"""Tool search in the Python API: ``Gateway.search_tools``, the deferred ``tool_schemas``
and the two meta-tools ``call_tool`` answers; names split as people read them; only tools
the caller may use are ever found."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.host._tool_search import readme_summary
from gateway.model import SearchDocument, ToolIndex, name_words
from gateway.store import PolicyRecords, StateStore
from tests.serve._helpers import install_ready

pytestmark = pytest.mark.anyio

OBJECT: dict[str, Any] = {"type": "object"}


async def _ok(arguments: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(f"ran with {json.dumps(arguments, sort_keys=True)}")


TOOLS = {
    "save_note": ("Save a note about the current work.", {"text": "The note's text."}),
    "open_ticket": ("Open a ticket in the issue tracker.", {"title": "What is wrong."}),
    "listTodos": ("List TODO and FIXME comments in the code.", {}),
    "mcp_glossary_define": ("The project glossary's definition.", {"term": "A word."}),
    "wordcount": ("Count the words of a text.", {"text": "Any text."}),
    "rm_files": ("Delete files from the disk.", {"paths": "Which files."}),
}


def _schema(parameters: dict[str, str]) -> dict[str, Any]:
    properties = {n: {"type": "string", "description": d} for n, d in parameters.items()}
    return {"type": "object", "properties": properties}


def _register(gateway: Any, names: tuple[str, ...] = tuple(TOOLS)) -> None:
    for name in names:
        description, parameters = TOOLS[name]
        gateway.register_builtin_tool(name, description, _schema(parameters), _ok, ["read"])


def test_names_split_in_every_house_style() -> None:
    assert name_words("save_note") == ["save", "note"]
    assert name_words("listTodos") == ["list", "todos"]
    assert name_words("HTTPServer-v2.get") == ["http", "server", "v", "2", "get"]
    assert name_words("mcp_glossary_define") == ["glossary", "define"]
    assert name_words("mcp__plugin_tickets_desk__openTicket") == [
        "tickets", "desk", "open", "ticket",
    ]  # fmt: skip


def test_parameters_and_package_words_are_searched() -> None:
    index = ToolIndex(
        [
            SearchDocument("a", "Do it.", _schema({"hostname": "The server to ping."})),
            SearchDocument("b", "Do it.", package_words="Kubernetes cluster helpers"),
            SearchDocument("c", "Something else entirely."),
        ]
    )
    assert [hit.name for hit in index.search("ping a server", 5)] == ["a"]
    assert [hit.name for hit in index.search("my kubernetes cluster", 5)] == ["b"]
    assert index.search("nothing shares a word", 5) == []


def test_equal_scores_are_ordered_by_name_whatever_the_order_tools_came_in() -> None:
    documents = [SearchDocument(name, "Resize an image.") for name in ("zeta", "alpha", "mid")]
    forward = ToolIndex(documents).search("resize image", 5)
    backward = ToolIndex(list(reversed(documents))).search("resize image", 5)
    assert [hit.name for hit in forward] == ["alpha", "mid", "zeta"]
    assert forward == backward


def test_a_readme_summary_is_its_first_prose() -> None:
    root = Path(__file__).parent / "_readme"
    root.mkdir(exist_ok=True)
    try:
        (root / "README.md").write_text(
            "# pkg\n\n[![badge](x)](y)\n\n```sh\nnpm i pkg\n```\n\nTurns diagrams into "
            "pictures.\n\n## Usage\n\nCall it.\n"
        )
        assert readme_summary(root) == "Turns diagrams into pictures. Call it."
    finally:
        (root / "README.md").unlink()
        root.rmdir()


async def test_search_finds_a_tool_from_a_task_in_plain_words(workspace) -> None:
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway)
        found = gateway.search_tools("report a bug in the issue tracker")
        counted = gateway.search_tools("count how many words a text has", limit=1)
    assert found[0].name == "open_ticket"
    assert [m.name for m in counted] == ["wordcount"]
    assert found[0].describe()["input_schema"]["properties"]["title"]["type"] == "string"


async def test_plan_mode_finds_only_tools_plan_mode_offers(workspace) -> None:
    async with open_gateway(
        workspace.root, trust=True, plan=True, config=workspace.config
    ) as gateway:
        gateway.register_builtin_tool("erase_disk", "Erase the disk.", OBJECT, _ok, ["write"])
        gateway.register_builtin_tool("read_disk", "Read the disk.", OBJECT, _ok, ["read"])
        found = [m.name for m in gateway.search_tools("disk")]
    assert found == ["read_disk"]


async def test_a_tool_an_adopted_policy_denies_outright_is_never_found(
    workspace, tmp_path: Path
) -> None:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "extension.json").write_text(json.dumps({"name": "rules", "command": ["true"]}))
    package = install_ready(workspace.config.home, folder)
    bundle = {"rules": [{"id": "no-rm", "priority": 1, "when": {"target": "rm_*"},
                         "then": {"decision": "deny"}}]}  # fmt: skip
    with StateStore.open(workspace.config.home) as store:
        PolicyRecords(store).accept(package, bundle)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway)
        found = gateway.search_tools("delete files from the disk", limit=20)
        schemas = gateway.tool_schemas(deferred=True, pinned=["rm_files"])
    assert "rm_files" not in [m.name for m in found]
    assert "rm_files" not in [s["name"] for s in schemas]


async def test_deferred_schemas_are_the_meta_tools_and_the_pinned_tools(workspace) -> None:
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway)
        schemas = gateway.tool_schemas(deferred=True, pinned=["wordcount"])
        everything = gateway.tool_schemas()
    assert [s["name"] for s in schemas] == ["search_tools", "call_tool", "wordcount"]
    assert schemas[0]["input_schema"]["required"] == ["query"]
    assert len(everything) == len(TOOLS)


async def test_the_meta_tools_search_then_call_through_the_hooks(workspace) -> None:
    workspace.add_extension(
        "guard", tools=[], events=["tool_call"],
        hooks={"tool_call": {"allow": False, "reason": "blocked by the guard"}},
    )  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway)
        searched = await gateway.call_tool("search_tools", {"query": "save a note", "limit": 2})
        called = await gateway.call_tool(
            "call_tool", {"name": "save_note", "arguments": {"text": "hi"}}
        )
        bad = await gateway.call_tool("search_tools", {"limit": 2})
    assert json.loads(searched.content)["tools"][0]["name"] == "save_note"
    assert searched.structured["tools"][0]["input_schema"]["properties"]["text"]
    assert called.blocked and called.content == "blocked by the guard"
    assert bad.is_error and "takes a query" in bad.content


async def test_a_real_tool_keeps_a_meta_tools_name_and_the_meta_tool_moves(workspace) -> None:
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway, ("save_note",))
        gateway.register_builtin_tool("search_tools", "A package's own search.", OBJECT, _ok)
        names = [s["name"] for s in gateway.tool_schemas(deferred=True)]
        real = await gateway.call_tool("search_tools", {"q": 1})
        meta = await gateway.call_tool("gateway_search_tools", {"query": "note"})
    assert names == ["gateway_search_tools", "call_tool"]
    assert real.content == 'ran with {"q": 1}'
    assert json.loads(meta.content)["tools"][0]["name"] == "save_note"


def test_a_query_in_a_persons_words_meets_a_description_in_a_tools() -> None:
    index = ToolIndex(
        [
            SearchDocument("list_directory", "Get a listing of the files in a directory."),
            SearchDocument("create_pull_request", "Create a new pull request in a repository."),
            SearchDocument("web_search", "Search the web for current information."),
        ]
    )
    assert [h.name for h in index.search("what is in this folder", 1)] == ["list_directory"]
    assert [h.name for h in index.search("open a PR on my repo", 1)] == ["create_pull_request"]
    assert [h.name for h in index.search("google it", 1)] == ["web_search"]


async def test_list_tokens_counts_each_packages_definitions_and_the_deferred_list(
    workspace,
) -> None:
    from gateway.cli._tool_tokens import tool_tokens

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway)
        report = tool_tokens(gateway)
    (builtin,) = report["packages"]
    assert builtin["tools"] == len(TOOLS) == report["tools"]
    assert builtin["tokens"] == report["tokens"] > 0
    assert report["with_tool_search"]["tools"] == 2  # the meta-tools, nothing pinned
    assert 0 < report["with_tool_search"]["tokens"] < report["tokens"]


async def test_a_packages_pin_setting_pins_and_a_bad_one_is_said_once(
    workspace, tmp_path: Path
) -> None:
    from gateway.packages import write_package_config

    ids = []
    for name in ("good", "bad"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "extension.json").write_text(json.dumps({"name": name, "command": ["true"]}))
        ids.append(install_ready(workspace.config.home, folder))
    write_package_config(workspace.config.home, ids[0], {"$gateway": {"pin": ["wordcount"]}})
    write_package_config(workspace.config.home, ids[1], {"$gateway": {"pin": 5}})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        _register(gateway)
        first = gateway.tool_search.pinned()
        second = gateway.tool_search.pinned(["save_note"])
        said = [d for d in gateway.diagnostics if d.code == "search.pin_invalid"]
    assert first == {"wordcount"} and second == {"wordcount", "save_note"}
    assert len(said) == 1 and said[0].package == ids[1]
