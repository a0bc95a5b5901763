"""Tool search: the tools a caller may use, ranked for a request in plain words, and the two
meta-tools (``search_tools``, ``call_tool``) that stand in for the whole list when it is
too long to hand a model (docs/embedding.md, docs/serve.md).

A caller may use a tool when the registry offers it now (plan mode: read/user tools only;
a disabled, untrusted or held-back package registers nothing), no adopted policy rule
denies every call of it (``PolicyGate.may_use``), and the caller's own filter lets it
through (``serve --http``: the token's packages). The index is built from exactly those
tools, so a tool the caller may not use is never named, described or counted, and weighs
on no score. Indexes are kept for the last few tool sets, so repeated searches over the
same tools cost only the ranking.

Pins (``gateway config ID '$gateway.pin' true``: every tool of the package;
``'["tool", …]'``: those tools) say which tools stay listed in deferred mode.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gateway.host._codes import SEARCH_PIN_INVALID
from gateway.host._policy_gate import PolicyGate
from gateway.host._state import GatewayState
from gateway.model import SearchDocument, ToolEntry, ToolIndex, ToolResult
from gateway.packages import (
    PackageConfigError,
    PackageStatus,
    package_settings,
    read_package_config,
)

__all__ = [
    "CALL_TOOL",
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "SEARCH_TOOLS",
    "ToolFilter",
    "ToolMatch",
    "ToolSearch",
    "meta_names",
    "meta_schemas",
]

SEARCH_TOOLS: Final = "search_tools"
CALL_TOOL: Final = "call_tool"
DEFAULT_LIMIT: Final = 5
MAX_LIMIT: Final = 20
_KEPT_INDEXES = 8
_README_BYTES = 64 * 1024
_SUMMARY_WORDS = 120

ToolFilter = Callable[[ToolEntry], bool]
"""The caller's own say on a tool (e.g. a token's package scope): True to let it through."""
CallTool = Callable[[str, dict[str, Any] | None], Awaitable[ToolResult]]


@dataclass(frozen=True, slots=True)
class ToolMatch:
    """One tool a search found, and its score (higher is better)."""

    tool: ToolEntry
    score: float

    @property
    def name(self) -> str:
        return self.tool.name

    def describe(self) -> dict[str, Any]:
        return {**self.tool.describe(), "score": self.score}


def meta_names(taken: Collection[str]) -> tuple[str, str]:
    """The names of the two meta-tools beside the tools in ``taken``: ``search_tools`` and
    ``call_tool``, or, when a real tool already has one, ``gateway_search_tools`` (then
    ``…_2``, ``…_3``): a real tool keeps its name."""
    return _free(SEARCH_TOOLS, taken), _free(CALL_TOOL, taken)


def _free(base: str, taken: Collection[str]) -> str:
    if base not in taken:
        return base
    name, count = f"gateway_{base}", 2
    while name in taken:
        name, count = f"gateway_{base}_{count}", count + 1
    return name


def meta_schemas(search: str = SEARCH_TOOLS, call: str = CALL_TOOL) -> list[dict[str, Any]]:
    """The two meta-tools in ``ToolEntry.describe``'s shape (name, description,
    input_schema)."""
    return [
        {
            "name": search,
            "description": (
                "Find the tools for a task. Describe what you want done in a few words; "
                "returns the best matching tools with their names, descriptions and input "
                f"schemas. Then call one with {call}."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The task, in plain words."},
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_LIMIT,
                        "default": DEFAULT_LIMIT,
                        "description": "How many tools at most.",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
        {
            "name": call,
            "description": f"Call a tool {search} found, by its name, with its arguments.",
            "input_schema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name."},
                    "arguments": {
                        "type": "object",
                        "description": "The arguments its schema asks for.",
                    },
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        },
    ]


class ToolSearch:
    def __init__(self, state: GatewayState, policy: PolicyGate) -> None:
        self._state = state
        self._policy = policy
        self._indexes: OrderedDict[tuple[int, ...], tuple[list[ToolEntry], ToolIndex]] = (
            OrderedDict()
        )
        self._package_words: dict[tuple[str, str], str] = {}
        self._pins_said: set[tuple[str, str]] = set()

    def usable(self, allowed: ToolFilter | None = None) -> list[ToolEntry]:
        """The tools the caller may use now, in the registry's order."""
        return [
            tool
            for tool in self._state.registry.tools(plan=self._state.plan)
            if self._policy.may_use(tool) and (allowed is None or allowed(tool))
        ]

    def search(
        self, query: str, limit: int = DEFAULT_LIMIT, allowed: ToolFilter | None = None
    ) -> list[ToolMatch]:
        """The best ``limit`` (at most ``MAX_LIMIT``) usable tools for ``query``, best first."""
        tools = self.usable(allowed)
        index = self._index(tools)
        by_name = {tool.name: tool for tool in tools}
        limit = max(0, min(limit, MAX_LIMIT))
        return [ToolMatch(by_name[hit.name], hit.score) for hit in index.search(query, limit)]

    def _index(self, tools: list[ToolEntry]) -> ToolIndex:
        # Keyed on the entries themselves (kept alive beside the index, so an id is never
        # reused while it is a key): a re-registered tool is a new entry, a new index.
        key = tuple(id(tool) for tool in tools)
        kept = self._indexes.get(key)
        if kept is not None:
            self._indexes.move_to_end(key)
            return kept[1]
        statuses = self._state.packages
        index = ToolIndex(
            [
                SearchDocument(t.name, t.description, t.input_schema, self._words(t, statuses))
                for t in tools
            ]
        )
        self._indexes[key] = (tools, index)
        while len(self._indexes) > _KEPT_INDEXES:
            self._indexes.popitem(last=False)
        return index

    def _words(self, tool: ToolEntry, statuses: list[PackageStatus]) -> str:
        status = provider(tool.owner, statuses)
        if status is None:
            return ""
        key = (status.id, status.entry.root)
        words = self._package_words.get(key)
        if words is None:
            entry = status.entry
            summary = readme_summary(Path(entry.root)) if entry.root else ""
            words = " ".join((entry.name, entry.description, summary))
            self._package_words[key] = words
        return words

    # ------------------------------------------------------------------ the meta-tools

    def meta_names(self, allowed: ToolFilter | None = None) -> tuple[str, str]:
        """The meta-tools' names beside the tools this caller may use."""
        return meta_names({tool.name for tool in self.usable(allowed)})

    def deferred_schemas(self, pinned: Iterable[str] = ()) -> list[dict[str, Any]]:
        """What a model is handed in deferred mode: the meta-tools, then the pinned tools."""
        pins = self.pinned(pinned)
        tools = self.usable()
        kept = sorted((t for t in tools if t.name in pins), key=lambda tool: tool.name)
        return [*meta_schemas(*self.meta_names()), *(tool.describe() for tool in kept)]

    async def route(
        self, name: str, arguments: dict[str, Any] | None, call: CallTool
    ) -> ToolResult:
        """A call by name: a meta-tool's (when no real tool has its name) is answered here —
        ``search_tools`` with the matches as JSON, ``call_tool`` by calling the tool it
        names through ``call`` (the full pipeline: prompt, hooks, policy, validation);
        any other goes to ``call``."""
        if (name not in (SEARCH_TOOLS, CALL_TOOL) and not name.startswith("gateway_")) or (
            self._state.registry.tool(name) is not None
        ):
            return await call(name, arguments)
        arguments = arguments or {}
        search, inner = self.meta_names()
        if name == search:
            query, limit = arguments.get("query"), arguments.get("limit", DEFAULT_LIMIT)
            if not isinstance(query, str) or not isinstance(limit, int) or limit < 1:
                return _error(f"{search} takes a query (text) and an optional limit (>= 1)")
            found = [m.tool.describe() for m in self.search(query, limit)]
            return ToolResult(json.dumps({"tools": found}), False, structured={"tools": found})
        if name == inner:
            target, given = arguments.get("name"), arguments.get("arguments", {})
            if not isinstance(target, str) or not isinstance(given, dict):
                return _error(f"{inner} takes a tool name and its arguments (an object)")
            return await call(target, given)
        return await call(name, arguments)

    # ------------------------------------------------------------------ pins

    def pinned(self, extra: Iterable[str] = ()) -> set[str]:
        """Names of the tools pinned by ``$gateway.pin`` settings and by ``extra`` (each a
        package id, pinning all its tools, or a tool name)."""
        wanted = set(extra)
        statuses = self._state.packages
        names: set[str] = set()
        for status in statuses:
            setting = self._pin_setting(status.id)
            if setting is True or status.id in wanted:
                names |= {t.name for t in self._state.registry.tools() if _owned(t, status)}
            elif isinstance(setting, list):
                names |= {name for name in setting if isinstance(name, str)}
        return names | wanted

    def _pin_setting(self, package_id: str) -> object:
        try:
            _, settings = package_settings(read_package_config(self._state.config.home, package_id))
        except PackageConfigError:
            return None  # the config's own problem, said where the package reads it
        setting = settings.get("pin")
        if setting is None or setting is True or setting is False:
            return setting
        if isinstance(setting, list) and all(isinstance(item, str) for item in setting):
            return setting
        said = (package_id, json.dumps(setting, sort_keys=True)[:200])
        if said in self._pins_said:
            return None  # said once (listings read the pins again and again)
        self._pins_said.add(said)
        self._state.diagnostics.add(
            SEARCH_PIN_INVALID(
                f"{package_id}: $gateway.pin is {json.dumps(setting)[:80]}, not true or a "
                "list of tool names; nothing of it is pinned",
                package=package_id,
            )
        )
        return None


def _error(message: str) -> ToolResult:
    return ToolResult(message, True)


def provider(owner: str, statuses: list[PackageStatus]) -> PackageStatus | None:
    """The installed package behind a registry owner (its id, ``id#N``, or ``id:tools``)."""
    for status in statuses:
        if _owner_of(owner, status):
            return status
    return None


def _owned(tool: ToolEntry, status: PackageStatus) -> bool:
    return _owner_of(tool.owner, status)


def _owner_of(owner: str, status: PackageStatus) -> bool:
    return owner == status.id or owner.startswith((f"{status.id}#", f"{status.id}:"))


_SKIPPED_LINE = re.compile(r"^\s*(#|!\[|\[!\[|<|\||```|~~~|>\s*\[!)")


def readme_summary(root: Path) -> str:
    """The first prose of a package's README (headings, badges, HTML, tables and code
    left out), at most ``_SUMMARY_WORDS`` words; "" without a readable README."""
    for name in ("README.md", "readme.md", "README", "README.txt"):
        path = root / name
        try:
            with path.open("rb") as handle:
                text = handle.read(_README_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        words: list[str] = []
        fenced = False
        for line in text.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
                continue
            if fenced or _SKIPPED_LINE.match(line):
                continue
            words += line.split()
            if len(words) >= _SUMMARY_WORDS:
                break
        return " ".join(words[:_SUMMARY_WORDS])
    return ""
