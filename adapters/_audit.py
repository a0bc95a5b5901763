"""Shared helpers of the adapters' audit knowledge (``adapters/*/_audit.py``): building
answers, the answer for a package a host does not load, and finding API calls in code.

Each ecosystem's module says what its host does; this one only holds what they share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from adapters import _codes as codes
from gateway.audit import (
    AUDIT_FOREIGN_PACKAGE,
    AUDIT_RUNS,
    Found,
    Item,
    SourceFile,
    Status,
    Support,
)
from gateway.base import DiagnosticCode

__all__ = [
    "ECOSYSTEMS",
    "call_sites",
    "foreign",
    "metadata",
    "not_applicable",
    "partial",
    "runs",
    "unsupported",
]

ECOSYSTEMS: Final = {
    "nimlet": "nimlet",
    "nu": "Nu",
    "nanobot": "nanobot",
    "pi": "Pi",
    "openclaw": "OpenClaw",
    "claude": "Claude Code",
    "agent-plugins": "Agent Plugins",
    "gemini": "Gemini CLI",
    "codex": "Codex",
}
_KIND_LABELS: Final = {
    "llm_provider": "model provider",
    "transcription_provider": "transcription provider",
    "image_generation_provider": "image generation provider",
    "web_search_provider": "web search provider",
    "mcp_server": "MCP server",
    "cli_command": "CLI command",
    "gateway_method": "gateway RPC method",
    "http_route": "HTTP route",
    "context_engine": "context engine",
    "webui": "web UI",
    "memory": "memory slot or store",
    "config": "config key",
    "api": "API call",
}


def runs(reason: str) -> Support:
    return Support(Status.RUNS, AUDIT_RUNS.code, reason)


def partial(code: DiagnosticCode, reason: str) -> Support:
    return Support(Status.PARTIAL, code.code, reason)


def metadata(code: DiagnosticCode, reason: str) -> Support:
    return Support(Status.METADATA_ONLY, code.code, reason)


def unsupported(code: DiagnosticCode, reason: str) -> Support:
    return Support(Status.UNSUPPORTED, code.code, reason)


def not_applicable(host: str, kind: str) -> Support:
    label = _KIND_LABELS.get(kind, kind.replace("_", " "))
    return Support(
        Status.NOT_APPLICABLE,
        codes.NOT_APPLICABLE.code,
        f"{ECOSYSTEMS.get(host, host)} has no {label}s",
    )


def foreign(host: str, item: Item, concepts: Iterable[str], how: str) -> Support:
    """A package of another ecosystem: unsupported where ``host`` has the concept (``how``
    says what it loads instead), not applicable where it has none."""
    if item.kind not in set(concepts):
        return not_applicable(host, item.kind)
    theirs = ECOSYSTEMS.get(item.ecosystem, item.ecosystem)
    return Support(
        Status.UNSUPPORTED,
        AUDIT_FOREIGN_PACKAGE.code,
        f"{ECOSYSTEMS.get(host, host)} does not load {theirs} packages ({how})",
    )


_STRING = r"""\s*(["'`])([^"'`\n]{1,200})\1"""
_NAME_IN_OBJECT = re.compile(r"""\bname\s*:\s*(["'`])([^"'`\n]{1,200})\1""")


def call_sites(
    sources: Sequence[SourceFile],
    methods: Mapping[str, str],
    ecosystem: str,
    *,
    receiver: str = r"\w+",
    named_by: Mapping[str, str] | None = None,
    names: Iterable[str] | None = None,
    prefix: str = "",
) -> list[Found]:
    """Calls ``<receiver>.<method>(`` in the reachable ``sources``, each an item of the
    kind ``methods[method]``. ``named_by[method]`` says where a literal name is: ``"string"``
    (the first argument), ``"object"`` (a ``name:`` key of an object literal first argument).
    A call without a literal name is an ``api`` item named after the method. ``names``:
    when given, only string-named calls whose name is in it count (e.g. known event names,
    so that an unrelated ``emitter.on("data")`` is not taken for a hook). ``prefix`` is put
    before the method in the API name (``ctx.`` for ``ctx.newSession``)."""
    named_by = named_by or {}
    allowed = set(names) if names is not None else None
    pattern = re.compile(
        rf"(?<![\w$])({receiver})\s*\.\s*({'|'.join(map(re.escape, methods))})\s*\("
    )
    found: list[Found] = []
    for source in sources:
        text = source.text
        # A call names its method verbatim: a file naming none is not searched (the pattern
        # starts with a look-behind, which the regex engine tries at every position).
        if not source.reachable or not any(method in text for method in methods):
            continue
        for match in pattern.finditer(text):
            method = match.group(2)
            api = prefix + method
            line = source.line_of(match.start())
            name = _literal_name(text, match.end(), named_by.get(method))
            if named_by.get(method) and name is None:
                if allowed is not None:
                    continue  # a non-literal event name on an unrelated emitter
                item = Item("api", api, ecosystem, {"api": api, "registers": methods[method]})
            elif name is not None:
                if allowed is not None and name not in allowed:
                    continue
                item = Item(methods[method], name, ecosystem, {"api": api})
            else:
                item = Item(methods[method], api, ecosystem, {"api": api})
            found.append(Found(item, source.path, line))
    return found


def _literal_name(text: str, start: int, how: str | None) -> str | None:
    if how == "string":
        match = re.compile(_STRING).match(text, start)
        return match.group(2) if match else None
    if how == "object":
        head = text[start : start + 600]
        if not head.lstrip().startswith("{"):
            return None
        match = _NAME_IN_OBJECT.search(head)
        return match.group(2) if match else None
    return None
