"""Where Pi's discovery looks (pi-upstream.md §1.2), known without loading the adapter: the
registry loads Pi's adapter for a workspace's discovery only when one of these folders is
there (``discovery_roots``)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["discovery_roots", "extension_dirs"]


def extension_dirs(workspace: Path, user_home: Path, trusted: bool) -> list[Path]:
    """Pi's discovery directories in load order (project first, when trusted)."""
    agent_dir = os.environ.get("PI_CODING_AGENT_DIR")
    user = Path(agent_dir) if agent_dir else user_home / ".pi" / "agent"
    dirs = [workspace / ".pi" / "extensions"] if trusted else []
    return [*dirs, user / "extensions"]


def discovery_roots(workspace: Path, user_home: Path) -> list[Path]:
    """Every folder ``discover`` reads, trusted or not (an untrusted workspace's own folder
    is read to say what was skipped): when none of them is a folder, it finds nothing."""
    return extension_dirs(workspace, user_home, True)
