"""Pi's prompt templates, served by the gateway itself: the skills and ``*.md`` templates a Pi
package ships (``pi.skills`` / ``pi.prompts`` or the convention folders) are listed, and
each template is a slash command expanded with Pi's own rules — a port of
``core/prompt-templates.js`` (pi-coding-agent 1.6: ``parseCommandArgs``,
``substituteArgs``), checked against the real functions in the tests:

- the arguments are split like a shell: whitespace separates, a quote opens only at the start
  of an argument (``"a b"``, ``'a b'``, ``""`` is an empty argument), ``\\"`` inside a double
  quote is a quote, an unclosed quote is literal text;
- ``$1`` … ``$N`` are positional, ``$@`` and ``$ARGUMENTS`` all arguments joined by spaces,
  ``${N:-default}`` / ``${@:-default}`` a default when empty, ``${@:N}`` / ``${@:N:L}``
  a slice; values are not substituted again.
"""

from __future__ import annotations

import re
from pathlib import Path

from adapters._files import Inspection
from adapters._skills import package_skill
from gateway.model import CatalogEntry, Discovery, PromptTemplate, parse_front_matter

__all__ = ["package_resources", "parse_command_args", "substitute_args"]

# JavaScript's \s, which is not Python's str.isspace (\x1c-\x1f, \x85 differ).
_JS_SPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(map(chr, range(0x2000, 0x200B)))
)
_PLACEHOLDER = re.compile(
    r"\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)"
)


def parse_command_args(text: str) -> list[str]:
    """Pi's ``parseCommandArgs``."""
    args: list[str] = []
    current = ""
    has_token = False
    quote: str | None = None
    quote_start = 0
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\" and text[index + 1 : index + 2] == quote:
                current += quote
                index += 1
            elif char == quote:
                quote = None
            else:
                current += char
        elif char in "\"'" and not has_token:
            quote, quote_start, has_token = char, index, True
        elif char in _JS_SPACE:
            if has_token:
                args.append(current)
                current, has_token = "", False
        else:
            current += char
            has_token = True
        if quote and index == len(text) - 1:
            # An unclosed quote is text: keep its character and read on after it.
            quote, current, index = None, text[quote_start], quote_start
        index += 1
    if has_token:
        args.append(current)
    return args


def substitute_args(content: str, args: list[str]) -> str:
    """Pi's ``substituteArgs``."""
    everything = " ".join(args)

    def replace(match: re.Match[str]) -> str:
        target, default, start, length, simple = match.groups()
        if target:
            value = everything if target in ("@", "ARGUMENTS") else _nth(args, int(target))
            return value or default
        if start:
            first = max(int(start) - 1, 0)
            end = first + int(length) if length else None
            return " ".join(args[first:end])
        if simple in ("@", "ARGUMENTS"):
            return everything
        return _nth(args, int(simple))

    return _PLACEHOLDER.sub(replace, content)


def _nth(args: list[str], position: int) -> str:
    # JavaScript's args[-1] is undefined: $0 is empty, as in Pi.
    return args[position - 1] if 0 < position <= len(args) else ""


def expand(body: str, arguments: str) -> str:
    """A Pi prompt template's body with the typed arguments."""
    return substitute_args(body, parse_command_args(arguments))


def package_resources(entry: CatalogEntry) -> Discovery:
    """The skills and prompt templates of an installed Pi package, from its catalog entry
    (the files ``inspect`` resolved with Pi's rules)."""
    root = Path(entry.root)
    inspection = Inspection(root)
    found = Discovery()
    for contribution in entry.contributions:
        rel = str(contribution.detail.get("path", ""))
        if contribution.kind == "skill":
            found.skills.append(
                package_skill(entry, contribution.name, contribution.description, rel)
            )
        elif contribution.kind == "prompt":
            text = inspection.read_text(rel)
            if text is None:
                continue  # unreadable since inspection: `inspect` reports it
            body = _body(text)
            description = parse_front_matter(text).text("description") or _first_line(body)
            found.prompts.append(
                PromptTemplate(
                    contribution.name, description, body, root / rel, "package", entry.id, expand
                )
            )
    return found


def _body(text: str) -> str:
    """Pi's ``parseFrontmatter`` body: after a closing ``---``, trimmed; else all of it."""
    normalized = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    end = normalized.find("\n---", 3) if normalized.startswith("---") else -1
    return normalized if end == -1 else normalized[end + 4 :].strip()


def _first_line(body: str) -> str:
    # Pi: without a description, the first non-empty line, cut at 60 characters.
    line = next((line for line in body.split("\n") if line.strip()), "")
    return line[:60] + ("..." if len(line) > 60 else "")
