"""Instruction-like text aimed at the model, in what a package gives it to read.

A tool's or command's description, a skill's body and a prompt template reach the model
word for word; a package can use them to steer it ("ignore previous instructions", "run
``curl … | sh``", "send ~/.ssh/id_rsa to …"). ``model_text_flags`` finds the patterns the
published reports of malicious agent skills describe; it is a heuristic over text, said as
such wherever it is shown, and it never changes what a package registers — the commands
that show the text mark it, and ``--strict`` withholds it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gateway.base import _codes
from gateway.base.diagnostics import Diagnostic

__all__ = [
    "INSTRUCTION_OVERRIDE",
    "TextFlag",
    "flagged_text",
    "held_flags",
    "model_text_flags",
    "read_model_text",
    "schema_text",
    "withheld",
]

INSTRUCTION_OVERRIDE = re.compile(
    r"ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier)\s+instructions"
    r"|disregard\s+(?:all\s+|the\s+)?(?:previous|prior|above)\s"
    r"|do\s+not\s+(?:tell|mention|inform|reveal|show)[^.\n]{0,40}\b(?:user|human)"
    r"|<\s*important\s*>|system\s+prompt\s+override|new\s+instructions\s*:"
    r"|(?:read|send|include|attach)[^.\n]{0,60}(?:~/\.ssh|id_rsa|\.env\b|api[_ ]?keys?\b)"
    r"[^.\n]{0,60}\b(?:as|in|to)\b",
    re.IGNORECASE,
)
"""Text that tells a model to drop its instructions, hide something from the user, or hand
over secrets (also the audit's ``prompt_injection`` signal)."""

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tells the model to override its instructions or hand over secrets", INSTRUCTION_OVERRIDE),
    ("pipes a download into a shell", re.compile(
        r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|]{0,200}\|\s*(?:sudo\s+)?"
        r"(?:(?:ba|z|da|k)?sh|python3?|node|iex|powershell)\b", re.IGNORECASE)),
    ("hides characters the user cannot see", re.compile(
        "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")),
    ("hides text in an HTML comment", re.compile(r"<!--[\s\S]*?(?:-->|$)")),
    ("carries a long encoded blob", re.compile(r"[A-Za-z0-9+/]{120,}={0,2}")),
    ("names a data-collection endpoint", re.compile(
        r"https?://[^\s\"'<>]*(?:webhook\.site|requestbin|pipedream\.net|ngrok(?:-free)?\."
        r"(?:io|app|dev)|discord(?:app)?\.com/api/webhooks|hooks\.slack\.com|burpcollaborator"
        r"|interact\.sh|oast\.(?:fun|me|pro|live|site|online))", re.IGNORECASE)),
)  # fmt: skip
_EXCERPT = 80

_HOLDING = frozenset({
    "tells the model to override its instructions or hand over secrets",
    "pipes a download into a shell",
    "hides characters the user cannot see",
    "names a data-collection endpoint",
})  # fmt: skip
"""The injection signals whose text is held back from the model until the user accepts it.
An HTML comment and a long encoded blob are shown, not held: real skills and prompts carry
Markdown comments and inline images."""


@dataclass(frozen=True, slots=True)
class TextFlag:
    what: str
    """What the text appears to do, e.g. ``pipes a download into a shell``."""
    excerpt: str
    """Where: up to 80 characters from the match (its control characters kept: the
    printable stream of the CLI shows them escaped)."""


def model_text_flags(text: str) -> list[TextFlag]:
    """Each kind of instruction-like text found in ``text``, once, with an excerpt."""
    flags = []
    for what, pattern in _PATTERNS:
        match = pattern.search(text)
        if match is not None:
            start = max(0, match.start() - 10)
            excerpt = " ".join(text[start : start + _EXCERPT].split())
            flags.append(TextFlag(what, excerpt))
    return flags


def held_flags(flags: list[TextFlag]) -> list[TextFlag]:
    """Of ``flags``, the injection signals that hold text back from the model."""
    return [flag for flag in flags if flag.what in _HOLDING]


_SCHEMA_STRINGS = 4096


def schema_text(schema: object) -> str:
    """The text of a tool's input schema the model reads too — every string in it (property
    names, descriptions, titles, enums, defaults, examples) — one per line, for
    ``model_text_flags``; at most the first 4096 strings, walked without recursion."""
    found: list[str] = []
    stack = [schema]
    while stack and len(found) < _SCHEMA_STRINGS:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            for key, value in item.items():
                stack.append(value)
                stack.append(str(key))
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return "\n".join(found)


_BODY_BYTES = 256 * 1024
"""Of a skill's or prompt's file, what is read to look for instructions."""


def read_model_text(path: Path) -> str:
    """The start of a skill's or prompt's file, as the model would read it ("" if it
    cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(_BODY_BYTES)
    except OSError:
        return ""


def flagged_text(kind: str, name: str, owner: str | None, flags: list[TextFlag]) -> Diagnostic:
    """``package.model_instructions`` for one contribution, quoting each flag's text."""
    found = "; ".join(f"{flag.what}: \u201c{flag.excerpt}\u201d" for flag in flags)
    who = f"{owner}: " if owner else ""
    return _codes.MODEL_INSTRUCTIONS(
        f"{who}{kind} {name!r}, in text the model reads — {found}",
        package=owner,
        contribution=name,
    )


def withheld(flags: list[TextFlag]) -> str:
    """What ``--strict`` shows instead of a flagged description."""
    return f"[withheld: {'; '.join(flag.what for flag in flags)}]"
