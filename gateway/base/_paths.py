"""File and folder names made from names a package controls, provably under their root.

Every name a package chooses is hostile input: a skill's (its own ``SKILL.md`` says it), a
prompt template's, a tool's or command's, an extension's, its own id. ``../../x``, ``/abs``,
``a\\b``, NUL, a newline, 300 characters, ``CON``, ``Skill`` beside ``skill`` — each would
write somewhere else than the writer meant, or fail, on some system the output reaches. So a
writer that turns such a name into a path goes through here, and only here:

- :func:`name_problem` says why a name cannot be one file name as it is, on Linux, macOS or
  Windows (an output may be copied to any of them);
- :func:`encode_name` keeps a harmless name as it is and turns any other into a readable
  one ending in a digest of the original: deterministic (the same name, the same file), and
  distinct names stay distinct;
- :func:`safe_join` joins names under a root, refusing any that is not one harmless name,
  and refuses a result that leaves the root, also through a symlink already there;
- :class:`FileNames` hands out the names of one folder, so two names that a
  case-insensitive or Unicode-normalising file system (macOS, Windows) takes for one are
  never given the same file.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import Path

from gateway.base.errors import GatewayError

__all__ = ["FileNames", "PathRefused", "encode_name", "name_problem", "safe_join"]

MAX_NAME_BYTES = 255
"""The longest file name Linux, macOS and Windows file systems all take."""
_KEPT_BYTES = 64
"""How much of a name an encoded one keeps readable."""
_WINDOWS_FORBIDDEN = frozenset('<>:"|?*')
_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"}
    | {f"{port}{n}" for port in ("COM", "LPT") for n in (*"0123456789", "¹", "²", "³")}
)
# What an encoded name replaces: separators, Windows' forbidden characters, controls (C0,
# DEL, C1) and lone surrogates (a file name that was not UTF-8).
_UNSAFE = re.compile(r'[/\\<>:"|?*\x00-\x1f\x7f-\x9f\ud800-\udfff]+')
_NOT_ASCII = re.compile(r"[^A-Za-z0-9._-]+")


class PathRefused(GatewayError, OSError):
    """A name that is not one harmless file name, or a path that would leave its root. An
    ``OSError``: whoever handles a file it cannot write handles this one too."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name!r}: {problem}")
        self.name = name
        self.problem = problem


def _is_device(name: str) -> bool:
    # Windows reserves the device names with any extension too ("NUL.md"), spaces before it
    # ignored.
    return name.split(".", 1)[0].rstrip(" ").upper() in _DEVICES


def name_problem(name: str, *, portable: bool = True) -> str | None:
    """Why ``name`` cannot be one file or folder name as it is; None when it can.
    ``portable``: by Windows' rules too (devices, ``<>:"|?*``, a trailing dot) wherever this
    runs — for what may be copied elsewhere; without it they apply only on Windows (a name
    under ``GATEWAY_HOME`` stays on this machine, and ``aux`` there keeps its folder)."""
    if not name:
        return "it is empty"
    if name in (".", ".."):
        return f"{name!r} is not a name but a folder itself"
    if "/" in name or "\\" in name:
        return "it holds a path separator"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "it is not valid Unicode text"
    if any(unicodedata.category(char) == "Cc" for char in name):
        return "it holds NUL or control characters"
    if size > MAX_NAME_BYTES:
        return f"it is {size} bytes long (a file name has at most {MAX_NAME_BYTES})"
    if not (portable or os.name == "nt"):
        return None
    forbidden = sorted(set(name) & _WINDOWS_FORBIDDEN)
    if forbidden:
        return f"it holds {''.join(forbidden)!r}, which Windows refuses in a name"
    if name[-1] in ". ":
        return "it ends in a dot or a space, which Windows drops"
    if _is_device(name):
        return "it is a device name on Windows (CON, NUL, COM1, …)"
    return None


def _digest(name: str) -> str:
    try:
        data = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = name.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:8]


def _readable(name: str, fallback: str, ascii_only: bool) -> str:
    if ascii_only:
        part = _NOT_ASCII.sub("_", name).strip("._")[:_KEPT_BYTES]
    else:
        part = _UNSAFE.sub("_", name).strip(". _")
        part = part.encode("utf-8")[:_KEPT_BYTES].decode("utf-8", "ignore")
    return part or fallback


def encoded_form(
    name: str, suffix: str = "", *, fallback: str = "unnamed", ascii_only: bool = False
) -> str:
    """``<readable part of name>-<8 hex of its SHA-256><suffix>``: always one harmless name,
    at most 73 bytes before the suffix. ``ascii_only``: the readable part only of
    ``[A-Za-z0-9._-]``, never starting with a dot."""
    if len(suffix.encode("utf-8")) > 32 or name_problem(f"x{suffix}") is not None:
        raise ValueError(f"{suffix!r} is not a suffix of a file name")
    encoded = f"{_readable(name, fallback, ascii_only)}-{_digest(name)}{suffix}"
    return f"_{encoded}" if _is_device(encoded) else encoded


def encode_name(
    name: str,
    suffix: str = "",
    *,
    fallback: str = "unnamed",
    ascii_only: bool = False,
    portable: bool = True,
) -> str:
    """``name + suffix`` when that is one harmless file name (:func:`name_problem`; with
    ``ascii_only`` also only of ``[A-Za-z0-9._-]``, no leading dot, at most 64 characters),
    else its encoded form (:func:`encoded_form`). ``suffix`` is the writer's own (``.md``)."""
    keep = all(name_problem(n, portable=portable) is None for n in (name, name + suffix))
    if ascii_only:
        keep = keep and len(name) <= _KEPT_BYTES and _NOT_ASCII.sub("_", name).strip("._") == name
    if keep:
        return name + suffix
    return encoded_form(name, suffix, fallback=fallback, ascii_only=ascii_only)


def safe_join(root: Path, *names: str, portable: bool = True) -> Path:
    """``root/names…``, after checking that each name is one harmless file name
    (:func:`name_problem`) and that the path, resolved with the symlinks already on it, is
    still under ``root`` resolved. Raises :class:`PathRefused` otherwise."""
    for name in names:
        problem = name_problem(name, portable=portable)
        if problem is not None:
            raise PathRefused(name, problem)
    path = root.joinpath(*names)
    base = root.resolve()
    if not path.resolve().is_relative_to(base):
        raise PathRefused("/".join(names), f"it leads out of {base} through a symlink")
    return path


def folded(name: str) -> str:
    """The key a case-insensitive, Unicode-normalising file system knows ``name`` by."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).casefold())


class FileNames:
    """The names given out in one folder. Two names that differ only in case or Unicode
    normalisation are one file on macOS and Windows, so the second is refused (or, with
    :meth:`unique`, given its encoded form) whatever this file system is: the output may be
    copied there."""

    def __init__(self) -> None:
        self._owners: dict[str, str] = {}

    def claim(self, name: str, owner: str) -> str | None:
        """Take ``name`` for ``owner``; on a clash the owner who has it (nothing taken)."""
        key = folded(name)
        if key in self._owners:
            return self._owners[key]
        self._owners[key] = owner
        return None

    def unique(self, name: str, suffix: str = "", *, portable: bool = True) -> str | None:
        """A name for ``name`` no earlier one clashes with: :func:`encode_name`, else the
        encoded form; None when both are taken (a name made to clash with a digest)."""
        kept = encode_name(name, suffix, portable=portable)
        for candidate in dict.fromkeys((kept, encoded_form(name, suffix))):
            if self.claim(candidate, name) is None:
                return candidate
        return None
