"""The words a tool search matches on: tool names split as people read them, text cut into
lower-case stemmed terms, and the words of a tool (its name, description, parameters) and
of its package.

Names come in every house style: ``snake_case``, ``camelCase``, ``kebab-case``, dotted,
``mcp_<plugin>_<tool>`` (an Agent Plugin's MCP tool) and ``mcp__plugin_<p>_<s>__<tool>``
(Claude Code's name for a plugin's MCP tool). ``mcp`` and ``plugin`` say how a tool came,
not what it does, so they are dropped from names. Stems come from the Snowball English
stemmer (PyStemmer), so "notes", "noting" and "note" meet.

Everything here reads package-controlled text: lengths are capped before any work.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

__all__ = ["name_words", "query_terms", "schema_words", "terms"]

MAX_TEXT = 8_000
"""Characters of one text (a description, a README summary) that count."""
MAX_PROPERTIES = 200
"""Parameters of one schema that count (nested ones included)."""
_MAX_DEPTH = 6

_WORD = re.compile(r"[A-Za-z]+|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_NAME_NOISE = frozenset({"mcp", "plugin"})
_STOP_WORDS = (
    "a about an and any are as at be by can do does for from get give has have how i if in "
    "into is it its me my of on one or our please that the their them then there these this "
    "to use using want was we what when where which while who will with would you your"
)
_STOP = frozenset(_STOP_WORDS.split())
"""English words that say nothing about a tool (a short list: a tool's own verbs such as
"list", "show" or "find" stay)."""


def name_words(name: str) -> list[str]:
    """A tool name's words, lower case, in order: ``mcp__plugin_tickets_desk__openTicket``
    → ``tickets desk open ticket``."""
    words: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", name[:MAX_TEXT]):
        words += [w.lower() for w in _CAMEL.findall(part)]
    return [w for w in words if w not in _NAME_NOISE]


_SYNONYMS = {
    # shell commands and abbreviations people type for what tools describe in words
    "ls": "list directory", "dir": "directory", "folder": "directory", "folders": "directory",
    "mkdir": "create directory", "rm": "delete remove", "mv": "move rename", "cp": "copy",
    "cat": "read file", "grep": "search", "cd": "directory", "pwd": "directory",
    "repo": "repository", "repos": "repository", "pr": "pull request", "prs": "pull request",
    "ci": "status checks", "diff": "changes", "url": "web page", "website": "web page",
    "internet": "web", "online": "web", "google": "search web", "browse": "web",
    # memory as people say it, and as knowledge-graph tools describe it
    "remember": "memory add create", "forget": "memory delete", "recall": "memory search",
    "fact": "observation", "facts": "observations", "link": "relation",
}  # fmt: skip
"""Query words and what tools call the same thing: a person says "folder", "ls", "PR"; a
tool's description says "directory", "list", "pull request". Only queries are expanded."""


def query_terms(text: str) -> list[str]:
    """A search's terms: ``terms`` of the text and of the synonyms of its words."""
    words = [w.lower() for w in _WORD.findall(text[:MAX_TEXT])]
    extra = " ".join(_SYNONYMS[w] for w in words if w in _SYNONYMS)
    return terms(text) + (terms(extra) if extra else [])


def terms(text: str) -> list[str]:
    """Stemmed lower-case terms of free text (camelCase and snake_case split), stop words
    dropped."""
    words = [w.lower() for w in _CAMEL.findall(" ".join(_WORD.findall(text[:MAX_TEXT])))]
    return _stemmed([w for w in words if w not in _STOP])


def schema_words(schema: Any) -> str:
    """The text of a JSON Schema's parameters: each property's name (split), title,
    description and string enum values, nested objects and arrays included."""
    parts: list[str] = []
    for name, prop in _properties(schema):
        parts.append(" ".join(name_words(name)))
        for key in ("title", "description"):
            value = prop.get(key)
            if isinstance(value, str):
                parts.append(value[:MAX_TEXT])
        enum = prop.get("enum")
        if isinstance(enum, list):
            parts += [v for v in enum[:50] if isinstance(v, str)]
    return "\n".join(parts)


def _properties(schema: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, schema) of every property, breadth first, at most ``MAX_PROPERTIES``; an
    explicit stack, so a hostile schema's depth costs no recursion."""
    queue: list[tuple[Any, int]] = [(schema, 0)]
    seen = 0
    while queue and seen < MAX_PROPERTIES:
        node, depth = queue.pop(0)
        if not isinstance(node, dict) or depth > _MAX_DEPTH:
            continue
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, prop in properties.items():
                if seen >= MAX_PROPERTIES:
                    break
                if isinstance(name, str) and isinstance(prop, dict):
                    seen += 1
                    yield name, prop
                    queue.append((prop, depth + 1))
        items = node.get("items")
        if isinstance(items, dict):
            queue.append((items, depth + 1))
        for key in ("anyOf", "oneOf", "allOf"):
            options = node.get(key)
            if isinstance(options, list):
                queue += [(option, depth + 1) for option in options[:20]]


def _stemmed(words: list[str]) -> list[str]:
    return _stemmer().stemWords(words) if words else []


@cache
def _stemmer() -> Any:
    import Stemmer  # PyStemmer: the Snowball stemmers, loaded on the first search

    return Stemmer.Stemmer("english")
