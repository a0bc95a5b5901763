"""Where OpenClaw's discovery looks (openclaw-upstream.md §6.1), known without loading the
adapter: the registry loads OpenClaw's adapter for a workspace's discovery only when one of
these folders is there (``discovery_roots``)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["discovery_roots", "plugin_roots"]


def plugin_roots(workspace: Path, user_home: Path, trusted: bool) -> list[Path]:
    """OpenClaw's auto-discovered roots in precedence order (workspace first, when trusted)."""
    project = [workspace / ".openclaw" / "extensions"] if trusted else []
    return [*project, user_home / ".openclaw" / "extensions"]


def discovery_roots(workspace: Path, user_home: Path) -> list[Path]:
    """Every folder ``discover`` reads, trusted or not (an untrusted workspace's own folder
    is read to say what was skipped): when none of them is a folder, it finds nothing."""
    return plugin_roots(workspace, user_home, True)
