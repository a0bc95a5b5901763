"""A server's listing — its tools, prompts, static resources (every page, up to 1,000
pages: a server that pages forever is cut off) and a count of its resource templates —
read the same way whichever client fetched the pages (``_stdio_client`` or
``_sdk_client``). One item of the wrong shape is a problem naming it, and the others are
kept; a page of the wrong shape is an ``InvalidResult`` (the server fails to start)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from adapters.plugin_host._shapes import (
    InvalidResult,
    Prompt,
    Resource,
    Tool,
    read_prompt,
    read_resource,
    read_tool,
)

__all__ = ["MAX_PAGES", "Fetch", "Listing", "list_server"]

MAX_PAGES = 1000

Fetch = Callable[[str, "str | None"], Awaitable[Any]]
"""Fetch one page: the method (``tools/list`` …) and the cursor (None: the first page)."""

Item = TypeVar("Item")


@dataclass(slots=True)
class Listing:
    tools: list[Tool] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)
    templates: int = 0
    problems: list[str] = field(default_factory=list)
    """An item not offered because of its shape, said for a person."""


async def _pages(fetch: Fetch, method: str, key: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(method, cursor)
        if not isinstance(page, dict) or not isinstance(page.get(key), list):
            raise InvalidResult(f"the {method} result has no list of {key}")
        items += page[key]
        cursor = page.get("nextCursor")
        if cursor is not None and not isinstance(cursor, str):
            raise InvalidResult(f"the {method} result's nextCursor is not a string")
        if not cursor:
            break
    return items


def _label(raw: Any) -> str:
    name = raw.get("name") if isinstance(raw, dict) else None
    return repr(name[:80]) if isinstance(name, str) else "without a name"


async def _read(
    fetch: Fetch,
    method: str,
    key: str,
    reader: Callable[[Any], Item],
    problems: list[str],
) -> list[Item]:
    kind = key[:-1]
    items: list[Item] = []
    for index, raw in enumerate(await _pages(fetch, method, key)):
        try:
            items.append(reader(raw))
        except InvalidResult as error:
            problems.append(f"{kind} #{index + 1} ({_label(raw)}): {error}; not offered")
    return items


async def list_server(fetch: Fetch, capabilities: dict[str, Any]) -> Listing:
    """What the server offers, by the capabilities it declared."""
    listing = Listing()
    problems = listing.problems
    if capabilities.get("tools") is not None:
        listing.tools = await _read(fetch, "tools/list", "tools", read_tool, problems)
    if capabilities.get("prompts") is not None:
        listing.prompts = await _read(fetch, "prompts/list", "prompts", read_prompt, problems)
    if capabilities.get("resources") is not None:
        listing.resources = await _read(
            fetch, "resources/list", "resources", read_resource, problems
        )
        try:
            templates = await _pages(fetch, "resources/templates/list", "resourceTemplates")
            listing.templates = len(templates)
        except Exception:
            listing.templates = 0  # only counted, for a diagnostic: not worth a failure
    return listing
