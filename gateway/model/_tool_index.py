"""A lexical index of tools for tool search: BM25 (``bm25s``) over each tool's name,
description, parameters and its package's own words.

One document per tool. The name's words count three times (a request that names what the
tool is called should find it first), the description and the parameters once each, the
package's words (its name, description and README summary) once. Scores are rounded and ties
broken by tool name, so the same index answers the same query the same way, whatever the
order the tools were registered in.

An index holds only the tools it was built from: a caller's index is built from the tools
that caller may use, so a tool it may not use weighs on no score and is never counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gateway.model._tool_words import name_words, query_terms, schema_words, terms

__all__ = ["IndexHit", "SearchDocument", "ToolIndex", "load_ranking"]

NAME_WEIGHT = 3
_DIGITS = 6
"""Scores are compared rounded to this many decimals: float noise never orders two hits."""


def load_ranking() -> None:
    """Import what ranking needs (``bm25s`` with numpy, the stemmer: about half a second)
    ahead of the first search; a server calls it in a worker thread."""
    import bm25s  # noqa: F401

    terms("warm")


@dataclass(frozen=True, slots=True)
class SearchDocument:
    """What a tool search knows of one tool."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)
    package_words: str = ""
    """The words of the package that offers it (name, description, README summary)."""

    def terms(self) -> list[str]:
        name = terms(" ".join(name_words(self.name)))
        return [
            *(name * NAME_WEIGHT),
            *terms(self.description),
            *terms(schema_words(self.input_schema)),
            *terms(self.package_words),
        ]


@dataclass(frozen=True, slots=True)
class IndexHit:
    name: str
    score: float


class ToolIndex:
    """BM25 over a fixed set of tools; ``search`` is deterministic for a given index."""

    def __init__(self, documents: Sequence[SearchDocument]) -> None:
        # Sorted by name: the index is the same whatever order the tools came in.
        self._names = sorted({d.name for d in documents})
        by_name = {d.name: d for d in documents}
        corpus = [by_name[name].terms() for name in self._names]
        self._vocabulary = {term for doc in corpus for term in doc}
        self._bm25: Any = None
        if self._names:
            import bm25s  # numpy and bm25s load on the first search, not with the gateway

            self._bm25 = bm25s.BM25()
            self._bm25.index(corpus, show_progress=False)

    def __len__(self) -> int:
        return len(self._names)

    @property
    def names(self) -> list[str]:
        return list(self._names)

    def search(self, query: str, limit: int) -> list[IndexHit]:
        """The ``limit`` best tools for ``query`` (only tools sharing a term with it),
        best first; equal scores by name."""
        wanted = [term for term in query_terms(query) if term in self._vocabulary]
        if not wanted or self._bm25 is None or limit <= 0:
            return []
        scores = self._bm25.get_scores(wanted)
        hits = [
            IndexHit(name, round(float(score), _DIGITS))
            for name, score in zip(self._names, scores, strict=True)
            if score > 0
        ]
        hits.sort(key=lambda hit: (-hit.score, hit.name))
        return hits[:limit]
