"""Package text made safe for a terminal, and any string made valid JSON.

A package controls its names, descriptions, results, progress and notifications. Printed
raw, its escape sequences would act on the user's terminal: OSC 52 writes the clipboard, OSC
0 the window title, CSI clears the screen or hides text; C1 controls (``\\x9b`` is a CSI on
its own) do the same on terminals that honour them, and bidi overrides or invisible
characters make text read differently from what it is. ``printable`` shows every such
character as a visible escape (``\\x1b``, ``\\u202e``), keeping newline and tab, and the
zero-width joiner where it joins two symbols (an emoji sequence: ``🧜‍♀️``); lone
surrogates (text a JSON manifest can hold but UTF-8 cannot) come out the same way.
``json_text`` keeps exact values: JSON escapes for what UTF-8 cannot carry.

``without_colour`` drops the colour and style a package wrote into text the gateway shows as
an agent host's interface would (a Pi package's status line styled by pi's theme, whose
print and RPC modes carry ANSI styling): shown escaped, ``\\x1b[32mready\\x1b[0m`` is
unreadable, and a headless host draws no colour. Only well-formed SGR sequences (``ESC [``
digits and separators ``m``) go; anything else stays for ``printable`` to show.
"""

from __future__ import annotations

import io
import json
import re
import unicodedata
from typing import Any, TextIO

__all__ = [
    "PrintableStream",
    "json_text",
    "printable",
    "printable_line",
    "raw_stream",
    "without_colour",
]

# C0 but tab and newline; DEL and C1; the Arabic letter mark; soft hyphen; the
# invisible and bidi format characters; the tag characters (hidden text); surrogates.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f\ud800-\udfff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code == 0x200D and _joins_symbols(match.string, match.start()):
        return "\u200d"  # an emoji's own joiner (🧜‍♀️, 👩‍💻): it hides nothing there
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _joins_symbols(text: str, at: int) -> bool:
    """A zero-width joiner between two symbols (the previous one possibly with its emoji
    presentation selector or skin tone): how emoji sequences are written, not hidden text."""
    if at == 0 or at + 1 >= len(text):
        return False
    before, after = text[at - 1], text[at + 1]
    if before == "\ufe0f" or unicodedata.category(before) == "Sk":  # VS16, a skin tone
        before = text[at - 2] if at >= 2 else ""
    return bool(before) and unicodedata.category(before) == "So" == unicodedata.category(after)


def printable(text: str) -> str:
    """``text`` with every character that could act on a terminal shown as an escape."""
    return _UNSAFE.sub(_escape, text)


_SGR = re.compile("\x1b\\[[0-9;:]*m")


def without_colour(text: str) -> str:
    """``text`` without its SGR sequences (colour, bold, underline, reset): what a package
    styled for a terminal, as plain text; every other control stays."""
    return _SGR.sub("", text) if "\x1b" in text else text


def printable_line(text: str) -> str:
    """``printable`` on one line: each run of whitespace (newlines too) one space, so a
    package's text cannot start a line of its own — a table cell, a diagnostic line."""
    return printable(" ".join(text.split()))


def json_text(data: Any, *, indent: int | None = 2) -> str:
    """``data`` as JSON text that any UTF-8 stream can carry: readable where it can be,
    ``\\u`` escapes of four hex digits for lone surrogates (still the exact value)."""
    text = json.dumps(data, indent=indent, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=indent, ensure_ascii=True, default=str)
    return text


class PrintableStream(io.TextIOBase):
    """A text stream for people: everything written goes through ``printable``. The
    gateway's own terminal drawing (rich's live status) writes to ``raw_stream``."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.raw.encoding

    def writable(self) -> bool:
        return True


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under a ``PrintableStream`` (the stream itself otherwise)."""
    return stream.raw if isinstance(stream, PrintableStream) else stream
