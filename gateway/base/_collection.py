"""``Diagnostics``: the ordered collection every operation reports into, kept bounded when
one package floods it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from gateway.base import _codes
from gateway.base.diagnostics import Diagnostic

__all__ = ["REPEAT_LIMIT", "Diagnostics"]

REPEAT_LIMIT = 50
"""Diagnostics of one code about one package kept before further ones are only counted."""


@dataclass(slots=True)
class Diagnostics:
    """An ordered collection with an optional live listener (the shell prints as they come).

    Each problem is said once: a diagnostic identical to one kept (code, severity, package,
    contribution, message, hint) is not kept again, nor told to the listener, but counted in
    ``suppressed``; ``since`` still counts it as raised again. A flood cannot grow it without
    bound: of each (code, package) the first ``REPEAT_LIMIT`` are kept, then one
    ``diagnostics.repeated`` says so, and the rest are counted in ``suppressed``."""

    items: list[Diagnostic] = field(default_factory=list)
    listener: Callable[[Diagnostic], None] | None = None
    limit: int = REPEAT_LIMIT
    suppressed: dict[tuple[str, str | None], int] = field(default_factory=dict)
    _counts: dict[tuple[str, str | None], int] = field(default_factory=dict)
    _raised: dict[Diagnostic, int] = field(default_factory=dict)
    """Each kept diagnostic → when it was last raised (``mark``'s count)."""
    _added: int = 0

    def add(self, diagnostic: Diagnostic) -> Diagnostic:
        self._added += 1
        key = (diagnostic.code, diagnostic.package)
        if diagnostic in self._raised:
            self._raised[diagnostic] = self._added
            self.suppressed[key] = self.suppressed.get(key, 0) + 1
            return diagnostic
        seen = self._counts[key] = self._counts.get(key, 0) + 1
        if seen > self.limit:
            self.suppressed[key] = self.suppressed.get(key, 0) + 1
            if seen == self.limit + 1:
                who = f"{diagnostic.package}: " if diagnostic.package else ""
                self._keep(
                    _codes.DIAGNOSTICS_REPEATED(
                        f"{who}more than {self.limit} {diagnostic.code} diagnostics; further "
                        "ones are counted, not kept",
                        package=diagnostic.package,
                    )
                )
            return diagnostic
        self._keep(diagnostic)
        return diagnostic

    def _keep(self, diagnostic: Diagnostic) -> None:
        self._raised[diagnostic] = self._added
        self.items.append(diagnostic)
        if self.listener is not None:
            self.listener(diagnostic)

    def extend(self, diagnostics: list[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            self.add(diagnostic)

    def mark(self) -> int:
        """A point to ask ``since`` from."""
        return self._added

    def since(self, mark: int) -> list[Diagnostic]:
        """What was raised after ``mark`` (also a problem said once before: it is raised
        again), in the order first said."""
        return [d for d in self.items if self._raised.get(d, 0) > mark]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)
