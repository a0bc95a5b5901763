"""File names derived from names a package controls.

An extension or package name may hold ``../``, slashes, NUL, control characters, be a
Windows device name or be thousands of characters long; a file name made from it must stay
one harmless path component. Distinct names must stay distinct, so anything changed on the
way adds a short digest of the original. The encoding is the gateway's one
(``gateway.base.encode_name``) in its strictest form: these names end up in folder names
the sandbox grants, environment variables and log file names. Device names count on Windows
only: these names stay under ``GATEWAY_HOME``, and elsewhere a package named ``aux`` keeps
the data folder it had.
"""

from __future__ import annotations

from gateway.base import encode_name

__all__ = ["safe_name"]


def safe_name(name: str, *, fallback: str = "unnamed") -> str:
    """One path component of ``[A-Za-z0-9._-]``, no leading dot, at most 73 characters (on
    Windows no device name); ``name`` itself when it is already such a component."""
    return encode_name(name, fallback=fallback, ascii_only=True, portable=False)
