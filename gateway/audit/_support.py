"""The vocabulary an adapter uses to say what its host accepts.

An audit asks, for every contribution of a package (an ``Item``) and every host, one
question: what does this host do with it? The answer is a ``Support``: a ``Status``, a
stable diagnostic code and a one-line reason. The gateway knows no ecosystem, so the
answers come from the adapters: each adapter may carry an ``audit`` attribute implementing
``HostKnowledge`` — what its own ecosystem's host does with any package (its column), what
the gateway does with packages of its ecosystem (the ``gateway`` column for them), which of
its ecosystem's APIs a package's code calls (rows inferred from the code), and which API
versions the package targets. ``gateway.audit`` only assembles the answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from gateway.model import CatalogEntry

__all__ = [
    "GATEWAY",
    "HOSTS",
    "Evidence",
    "Found",
    "HostKnowledge",
    "HostLine",
    "Item",
    "SourceFile",
    "Status",
    "Support",
    "Target",
]

GATEWAY = "gateway"
HOSTS: tuple[str, ...] = (
    GATEWAY,
    "nimlet",
    "nu",
    "nanobot",
    "pi",
    "openclaw",
    "agent-plugins",
    "gemini",
    "codex",
)
"""The report's columns, in order: the gateway itself, then each ecosystem's own host."""


class Status(StrEnum):
    RUNS = "runs"
    """The host executes it with its ecosystem's semantics."""
    PARTIAL = "partial"
    """The host runs it with limits (a grant needed, some fields or effects not honoured)."""
    METADATA_ONLY = "metadata-only"
    """The host reads and lists it; nothing of it executes."""
    UNSUPPORTED = "unsupported"
    """The host has no way to use it (the API is not offered, or the package is foreign)."""
    NOT_APPLICABLE = "not-applicable"
    """The host has no such kind of contribution at all."""


class Evidence(StrEnum):
    DECLARED = "declared"
    """Named in the package's metadata (a manifest, package.json)."""
    INFERRED = "inferred"
    """Found in the package's code by the static scan (a heuristic; nothing ran)."""
    OBSERVED = "observed"
    """Recorded while the package loaded in a throwaway sandbox (``--load``)."""


@dataclass(frozen=True, slots=True)
class Support:
    status: Status
    code: str
    """A catalogued diagnostic code (``docs/diagnostics.md``)."""
    reason: str


@dataclass(frozen=True, slots=True)
class Item:
    """One contribution of a package, as the audit sees it.

    ``kind``: tool, command, hook, skill, prompt, theme, config, secret, channel,
    llm_provider (and the other provider kinds), mcp_server, cli_command, contract, webui,
    service, gateway_method, http_route, renderer, shortcut, flag, memory, context_engine,
    extension (an entry module or a process) or api (any other API the code calls).
    ``name``: the contribution's name (a hook's native event name, an API's method name).
    """

    kind: str
    name: str
    ecosystem: str
    """The package's own ecosystem (the one whose API the item belongs to)."""
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A code file of the package the scan read (text capped per file)."""

    path: str
    """Relative to the package root, POSIX separators."""
    text: str
    reachable: bool
    """Reached from an entry point by relative imports (or an entry itself)."""

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


@dataclass(frozen=True, slots=True)
class Found:
    """An item found in a package, where."""

    item: Item
    path: str
    line: int | None = None
    evidence: Evidence = Evidence.INFERRED
    """Most items come from the code; a few an adapter reads from metadata the catalog
    entry does not carry as a contribution (e.g. OpenClaw's memory slot)."""


@dataclass(frozen=True, slots=True)
class Target:
    """An API version the package targets, e.g. Pi's ``@mariozechner`` scope or OpenClaw's
    ``compat.pluginApi``."""

    api: str
    value: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class HostLine:
    """Whether a package works with one release line of its ecosystem's own host (a column
    of "works with": ``Pi 1.6``, ``OpenClaw 2026.9.36 LTS``), and why not.

    An adapter that knows its host's history answers these with an optional
    ``host_lines(entry, sources)`` method beside ``HostKnowledge``'s."""

    host: str
    """The ecosystem (``pi``, ``openclaw``)."""
    line: str
    """The release line as people name it: ``1.6``, ``2026.11``, ``2026.9.36 LTS``."""
    works: bool
    code: str | None = None
    """Why not: a catalogued diagnostic code (None when it works)."""
    reasons: tuple[str, ...] = ()
    """What the package uses that this line removed or refuses (empty when it works)."""

    @property
    def label(self) -> str:
        return f"{_HOST_NAMES.get(self.host, self.host)} {self.line}"


_HOST_NAMES = {"pi": "Pi", "openclaw": "OpenClaw", "nanobot": "nanobot", "nu": "Nu"}


@runtime_checkable
class HostKnowledge(Protocol):
    """What an adapter knows for an audit (its ``audit`` attribute). No method may raise
    for a hostile package: every answer is a ``Support``."""

    ecosystem: str

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        """What this ecosystem's own host (upstream, per its documents) does with ``item``
        of ``entry`` — a package of any ecosystem."""
        ...

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        """What the gateway does with ``item`` of ``entry``, a package of this ecosystem."""
        ...

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        """The items this ecosystem's API calls in ``sources`` reveal (a package of this
        ecosystem): registrations with literal names, hooks, other API use."""
        ...

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        """The API versions ``entry`` targets."""
        ...
