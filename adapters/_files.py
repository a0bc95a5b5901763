"""Reading package files without ever raising: every problem becomes a diagnostic.

Packages are untrusted input. Paths may hold NUL bytes, be absurdly long, loop through
symlinks or point outside the package; files may be FIFOs, huge, or not UTF-8. The
helpers here turn all of that into diagnostics that name the file and the problem, so
adapters can be written as straight-line code.
"""

from __future__ import annotations

import itertools
import json
import os
import posixpath
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from adapters import _codes as codes
from gateway.base import Diagnostic, DiagnosticCode, lone_surrogate

__all__ = [
    "ABSENT",
    "MAX_FILE_BYTES",
    "SCAN_LIMIT",
    "Inspection",
    "fits",
    "is_absolute",
    "jsonable",
    "normalize_relative",
    "safe_exists",
    "safe_is_dir",
    "safe_is_file",
    "type_name",
]

MAX_FILE_BYTES: Final = 1_048_576  # metadata files; anything larger is not a manifest
SCAN_LIMIT: Final = 10_000  # directory entries looked at per scan
SKIPPED_DIRS: Final = frozenset({"node_modules", "__pycache__"})


class _Absent:
    """Marks "no value" where None is a legitimate JSON/YAML value."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()

_DRIVE = re.compile(r"^[A-Za-z]:(?:[\\/]|$)")
_JSON5_TOKENS = re.compile(
    r'"(?:[^"\\]|\\.)*"'  # strings are kept as they are
    r"|//[^\n]*"  # line comment
    r"|/\*.*?(?:\*/|\Z)"  # block comment (an unclosed one runs to the end: linear time)
    r"|,(?=\s*[}\]])",  # trailing comma (lookahead does not see comments; rare enough)
    re.S,
)


def safe_is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def safe_exists(path: Path) -> bool:
    """Is there anything at ``path`` (a dangling symlink counts)?"""
    try:
        path.lstat()
    except (OSError, ValueError):
        return False
    return True


def safe_is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def is_absolute(raw: str) -> bool:
    """POSIX, Windows drive or home-relative: a path that is not package-relative."""
    return raw.startswith(("/", "\\", "~")) or _DRIVE.match(raw) is not None


def normalize_relative(raw: str) -> str | None:
    """``raw`` as a clean POSIX path relative to the package root, or None if it escapes.

    Lexical only (symlinks are checked by :meth:`Inspection.resolve`). Backslashes count
    as separators so a Windows-style ``..\\x`` cannot slip through.
    """
    if not raw or "\x00" in raw:
        return None
    if is_absolute(raw):
        return None
    text = raw.replace("\\", "/")
    normalized = posixpath.normpath(text)
    if normalized == ".." or normalized.startswith("../"):
        return None
    return normalized


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


@dataclass(slots=True)
class Inspection:
    """The state of one package inspection: its root and the diagnostics so far."""

    root: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _real_root: Path | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        try:
            self._real_root = self.root.resolve()
        except (OSError, ValueError, RuntimeError):
            self._real_root = None

    def add(self, diagnostic: Diagnostic) -> None:
        self.diagnostics.append(diagnostic)

    def finish(self, package_id: str) -> list[Diagnostic]:
        """The diagnostics with their package filled in, once the id is known."""
        return [d if d.package else replace(d, package=package_id) for d in self.diagnostics]

    # --- paths ---------------------------------------------------------------------------

    def inside(self, path: Path) -> bool:
        """Does ``path`` (after following symlinks) stay inside the package root?"""
        if self._real_root is None:
            return False
        try:
            return path.resolve().is_relative_to(self._real_root)
        except (OSError, ValueError, RuntimeError):
            return False

    def resolve(self, raw: object, *, label: str, must_exist: bool = True) -> str | None:
        """Check a declared relative path; return it normalised, or None with a diagnostic.

        ``label`` names where the path was declared (``package.json pi.extensions[0]``).
        """
        if not isinstance(raw, str) or not raw.strip():
            self.add(codes.PATH_ESCAPE(f"{label}: not a non-empty relative path: {raw!r}"))
            return None
        rel = normalize_relative(raw)
        if rel is None:
            self.add(codes.PATH_ESCAPE(f"{label}: {raw!r} is absolute or leaves the package"))
            return None
        path = self.root / rel
        if not self._exists(path):
            if not must_exist:
                return rel
            self.add(codes.ENTRY_NOT_FOUND(f"{label}: {raw!r} does not exist in the package"))
            return None
        if not self.inside(path):
            self.add(codes.PATH_ESCAPE(f"{label}: {raw!r} resolves outside the package"))
            return None
        return rel

    @staticmethod
    def _exists(path: Path) -> bool:
        try:
            os.stat(path)
        except (OSError, ValueError):
            return False
        return True

    # --- reading -------------------------------------------------------------------------

    def read_text(self, rel: str, *, required: bool = True) -> str | None:
        """The file's UTF-8 text, or None (with a diagnostic unless absent and optional)."""
        path = self.root / rel
        try:
            info = os.stat(path)
        except FileNotFoundError:
            if required:
                self.add(codes.FILE_MISSING(f"{rel}: file not found"))
            return None
        except (OSError, ValueError) as error:
            self.add(codes.FILE_UNREADABLE(f"{rel}: cannot stat: {_one_line(str(error))}"))
            return None
        if not self.inside(path):
            self.add(codes.PATH_ESCAPE(f"{rel}: resolves outside the package"))
            return None
        # Checked before opening: opening a FIFO would block the inspection.
        if not stat.S_ISREG(info.st_mode):
            self.add(codes.FILE_UNREADABLE(f"{rel}: not a regular file"))
            return None
        if info.st_size > MAX_FILE_BYTES:
            self.add(codes.FILE_UNREADABLE(f"{rel}: {info.st_size} bytes, over {MAX_FILE_BYTES}"))
            return None
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            self.add(codes.FILE_UNREADABLE(f"{rel}: cannot read: {_one_line(str(error))}"))
            return None
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            self.add(codes.FILE_UNREADABLE(f"{rel}: not UTF-8 text (bad byte at {error.start})"))
            return None

    def read_json(self, rel: str, *, required: bool = True, lenient: bool = False) -> Any:
        """Parsed JSON, or ABSENT. ``lenient`` accepts comments and trailing commas (JSON5-lite)."""
        text = self.read_text(rel, required=required)
        if text is None:
            return ABSENT
        if lenient:
            text = _JSON5_TOKENS.sub(lambda m: m.group(0) if m.group(0)[0] == '"' else "", text)
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as error:
            where = f"line {error.lineno} column {error.colno}"
            self.add(codes.JSON_INVALID(f"{rel}: invalid JSON at {where}: {error.msg}"))
        except RecursionError:
            self.add(codes.JSON_INVALID(f"{rel}: invalid JSON: nested too deeply"))
        except ValueError as error:
            self.add(codes.JSON_INVALID(f"{rel}: invalid JSON: {_one_line(str(error))}"))
        else:
            return self._text_only(rel, value, codes.JSON_INVALID)
        return ABSENT

    def read_json_object(
        self, rel: str, *, required: bool = True, lenient: bool = False
    ) -> dict[str, Any] | None:
        value = self.read_json(rel, required=required, lenient=lenient)
        if value is ABSENT:
            return None
        if not isinstance(value, dict):
            self.add(codes.NOT_AN_OBJECT(f"{rel}: top level is {type_name(value)}, not an object"))
            return None
        return value

    def read_yaml(self, rel: str, *, required: bool = True) -> Any:
        text = self.read_text(rel, required=required)
        if text is None:
            return ABSENT
        import yaml  # here: a gateway that reads no YAML file does not pay for PyYAML

        try:
            value = yaml.safe_load(text)
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            problem = error.problem or error.context or "syntax error"
            self.add(codes.YAML_INVALID(f"{rel}: invalid YAML{where}: {_one_line(problem)}"))
        # PyYAML's constructors raise plain Python errors too (bad timestamps, deep nesting).
        except (yaml.YAMLError, ValueError, TypeError, RecursionError, OverflowError) as error:
            message = _one_line(str(error)) or type(error).__name__
            self.add(codes.YAML_INVALID(f"{rel}: invalid YAML: {message}"))
        else:
            return self._text_only(rel, value, codes.YAML_INVALID)
        return ABSENT

    def _text_only(self, rel: str, value: Any, code: DiagnosticCode) -> Any:
        """``value``, or ABSENT with a diagnostic when one of its strings holds a lone
        surrogate (an escape such as ``\\ud800``): not text, and no file, store or terminal
        downstream could take it."""
        found = lone_surrogate(value)
        if found is None:
            return value
        self.add(code(f"{rel}: a string is not text (a lone surrogate): “{found}”"))
        return ABSENT

    # --- scanning ------------------------------------------------------------------------

    def walk(self, rel_dir: str = "", *, recursive: bool = True) -> Iterator[tuple[str, bool]]:
        """(relative path, is_dir) under ``rel_dir``, depth first in name order, skipping
        dot entries and node_modules; never descends through a symlink; stops after
        SCAN_LIMIT entries (with a diagnostic)."""
        seen = 0
        stack = [iter(self._listing(rel_dir))]
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
                continue
            rel, is_dir, is_link = item
            seen += 1
            if seen > SCAN_LIMIT:
                self.add(codes.SCAN_TRUNCATED(f"{rel_dir or '.'}: more than {SCAN_LIMIT} entries"))
                return
            if is_link and not self.inside(self.root / rel):
                self.add(codes.PATH_ESCAPE(f"{rel}: symlink points outside the package"))
                continue
            yield rel, is_dir
            if is_dir and recursive and not is_link:
                stack.append(iter(self._listing(rel)))

    def _listing(self, rel_dir: str) -> list[tuple[str, bool, bool]]:
        try:
            with os.scandir(self.root / rel_dir) as iterator:
                entries = sorted(iterator, key=lambda e: e.name)
        except (OSError, ValueError):
            return []
        listing: list[tuple[str, bool, bool]] = []
        for entry in entries:
            if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                continue
            rel = posixpath.join(rel_dir, entry.name) if rel_dir not in ("", ".") else entry.name
            try:
                listing.append((rel, entry.is_dir(), entry.is_symlink()))
            except OSError:
                continue
        return listing


def jsonable(value: object, depth: int = 32, budget: int = 10_000) -> Any:
    """A JSON-safe copy of parsed YAML/JSON: non-string keys and odd scalars (dates, sets)
    become strings. Deep nesting and oversized values are cut off with ``"..."``: YAML
    aliases can build cycles and exponentially large trees (the "billion laughs")."""
    remaining = [budget]

    def copy(item: object, level: int) -> Any:
        remaining[0] -= 1
        if item is None or isinstance(item, bool | int | float | str):
            return item
        if level <= 0 or remaining[0] <= 0:
            return "..."
        if isinstance(item, dict):
            pairs = itertools.takewhile(lambda _: remaining[0] > 0, item.items())
            return {str(key): copy(inner, level - 1) for key, inner in pairs}
        if isinstance(item, list | tuple | set | frozenset):
            items = itertools.takewhile(lambda _: remaining[0] > 0, item)
            return [copy(inner, level - 1) for inner in items]
        return str(item)

    return copy(value, depth)


def fits(value: object, depth: int = 32, budget: int = 10_000) -> bool:
    """Whether ``value`` has at most ``budget`` values, nested at most ``depth`` deep, as
    a tree: YAML aliases share objects, so a small document can stand for a huge tree that
    anything walking it (a schema check) would take hours over."""
    remaining = budget
    stack: list[tuple[object, int]] = [(value, depth)]
    while stack:
        item, level = stack.pop()
        remaining -= 1
        if remaining < 0:
            return False
        if isinstance(item, dict):
            children: Iterable[object] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if level <= 0:
            return False
        stack.extend((child, level - 1) for child in children)
        if len(stack) > remaining:
            return False
    return True


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def type_name(value: object) -> str:
    """A JSON-ish name for a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
