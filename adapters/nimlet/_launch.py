"""How a nimlet package starts: the gateway runs nimlet's own formats itself, so the adapter
plans no process. An ``extension.json`` extension is started by the gateway's discovery and
loader (``gateway.model.discovery``, ``gateway/host/_planning.py``) from the manifest it
reads itself; ``tool.json`` tools run one process per call (``gateway/host/external_tools.py``);
skills and prompt templates are files the gateway serves."""

from __future__ import annotations

from pathlib import Path

from gateway.model import CatalogEntry, LaunchSpec

__all__ = ["plan_nimlet"]


def plan_nimlet(entry: CatalogEntry, home: Path) -> LaunchSpec | None:
    """None: nothing for the adapter to plan (see the module's docstring)."""
    return None
