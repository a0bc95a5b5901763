"""File names derived from names a package controls.

An extension or package name may hold ``../``, slashes, NUL, control characters or be
thousands of characters long; a file name made from it must stay one harmless path
component. Distinct names must stay distinct, so anything changed on the way adds a short
digest of the original.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["safe_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX = 64


def safe_name(name: str, *, fallback: str = "unnamed") -> str:
    """One path component of ``[A-Za-z0-9._-]``, no leading dot, at most 73 characters;
    ``name`` itself when it is already such a component."""
    cleaned = _UNSAFE.sub("_", name).strip("._") or fallback
    if cleaned == name and len(name) <= _MAX:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{cleaned[:_MAX]}-{digest}"
