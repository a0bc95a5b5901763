"""A Gemini CLI extension's custom commands (``commands/**/*.toml``), read and expanded by
Gemini CLI's rules (``packages/cli/src/services/FileCommandLoader.ts`` and its prompt
processors):

- a file is ``prompt = "..."`` (required string) and an optional string ``description``
  (default ``Custom command from <file>.toml``); an invalid file is skipped;
- its name is its path under ``commands/`` without ``.toml``, each segment's characters
  outside ``[A-Za-z0-9_.-]`` as ``_`` (a segment over 50 characters cut to 47 and ``...``),
  joined with ``:`` (``commands/gcs/sync.toml`` is ``gcs:sync``);
- ``{{args}}`` is what was typed after the command, as typed; when the prompt has no
  ``{{args}}`` and arguments were typed, the whole invocation is appended after a blank line.

``!{...}`` (shell output injected after the user confirms) and ``@{...}`` (a file injected)
are neither run nor read: the text stays as written and the command's description says so
(``gemini.command_injection_not_run`` at inspection).
"""

from __future__ import annotations

import functools
import posixpath
import re
import tomllib
from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection, safe_is_dir
from adapters._skills import package_skill
from adapters.gemini import _codes as codes
from gateway.model import CatalogEntry, Contribution, Discovery, PromptTemplate

__all__ = ["command_name", "expand", "package_resources", "read_commands"]

_SEGMENT_OUT: Final = re.compile(r"[^a-zA-Z0-9_\-.]")
_INJECTION: Final = re.compile(r"[!@]\{")
ARGS: Final = "{{args}}"


def command_name(rel: str) -> str:
    """``commands/gcs/sync.toml`` → ``gcs:sync``."""
    stem = rel.removeprefix("commands/").removesuffix(".toml")
    parts = []
    for segment in stem.split("/"):
        clean = _SEGMENT_OUT.sub("_", segment)
        parts.append(f"{clean[:47]}..." if len(clean) > 50 else clean)
    return ":".join(parts)


def read_commands(inspection: Inspection) -> list[Contribution]:
    if not safe_is_dir(inspection.root / "commands"):
        return []
    found = []
    for rel, is_dir in inspection.walk("commands"):
        if is_dir or not rel.endswith(".toml"):
            continue
        text = inspection.read_text(rel)
        if text is None:
            continue
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            inspection.add(codes.GEMINI_COMMAND_INVALID(f"{rel}: invalid TOML: {error}; skipped"))
            continue
        prompt, description = data.get("prompt"), data.get("description")
        if not isinstance(prompt, str) or not isinstance(description, str | None):
            why = "the 'prompt' field is required (a string)" if not isinstance(prompt, str) \
                else "description is not a string"  # fmt: skip
            inspection.add(codes.GEMINI_COMMAND_INVALID(f"{rel}: {why}; skipped"))
            continue
        injections = sorted(set(_INJECTION.findall(prompt)))
        if injections:
            inspection.add(codes.GEMINI_COMMAND_INJECTION_NOT_RUN(
                f"{rel}: {' and '.join(i + '...}' for i in injections)} kept as text: the "
                "gateway neither runs the shell command nor reads the file",
                contribution=command_name(rel),
            ))  # fmt: skip
        base = posixpath.basename(rel)
        found.append(Contribution(
            kind="prompt", name=command_name(rel),
            description=(description or f"Custom command from {base}")[:100],
            detail={"path": rel, "injections": injections},
        ))  # fmt: skip
    return found


def expand(body: str, arguments: str, *, name: str) -> str:
    """A command's prompt for the typed ``arguments`` (``{{args}}`` as typed; else the
    invocation appended, as Gemini's ``DefaultArgumentProcessor`` does)."""
    if ARGS in body:
        return body.replace(ARGS, arguments)
    if arguments.strip():
        return f"{body}\n\n/{name} {arguments}"
    return body


def package_resources(entry: CatalogEntry) -> Discovery:
    """Skills and context files (listed and served like skills) and TOML commands."""
    root = Path(entry.root)
    inspection = Inspection(root)
    found = Discovery()
    for contribution in entry.contributions:
        rel = str(contribution.detail.get("path", ""))
        if contribution.kind == "skill":
            found.skills.append(
                package_skill(entry, contribution.name, contribution.description, rel)
            )
        elif contribution.kind == "context_file":
            name = f"{entry.id}:{contribution.name}"
            found.skills.append(package_skill(entry, name, contribution.description, rel))
        elif contribution.kind == "prompt":
            text = inspection.read_text(rel)
            data = _loads(text) if text is not None else None
            if data is None:
                continue  # changed since inspection: `inspect` reports it
            description = contribution.description
            if contribution.detail.get("injections"):
                description += " (its !{...}/@{...} are not run: kept as text)"
            rule: Any = functools.partial(expand, name=contribution.name)
            found.prompts.append(PromptTemplate(
                contribution.name, description, data["prompt"], root / rel, "package",
                entry.id, rule,
            ))  # fmt: skip
    found.diagnostics += inspection.finish(entry.id)
    return found


def _loads(text: str) -> dict[str, Any] | None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    return data if isinstance(data.get("prompt"), str) else None
