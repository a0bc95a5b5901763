"""One JSON file replaced whole: written to a private temporary file beside it (0600 from
its creation: it may hold keys), then renamed over it, so a reader sees the old document or
the new one, never half of either; the temporary file is removed when writing fails."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

__all__ = ["write_json_atomically"]


def write_json_atomically(
    path: Path,
    document: object,
    *,
    indent: int | None = None,
    ensure_ascii: bool = True,
    durable: bool = False,
) -> None:
    """Replace ``path`` with ``document`` as JSON (a newline after it when ``indent`` is
    given). ``durable``: flushed to the disk before the rename. The folder must exist.
    Raises ``OSError``, and what ``json.dump`` raises for what it cannot encode."""
    # A short name of its own: the final name may already be as long as a name can be.
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".write-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=indent, ensure_ascii=ensure_ascii)
            if indent is not None:
                handle.write("\n")
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
