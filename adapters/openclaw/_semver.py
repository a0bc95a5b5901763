"""The OpenClaw version the sidecar's host emulates; ranges are read by ``adapters._semver``."""

from __future__ import annotations

from typing import Final

from adapters._semver import parse_version, satisfies

__all__ = ["HOST_VERSION", "parse_version", "satisfies"]

HOST_VERSION: Final = "2026.9.6"
"""The OpenClaw the sidecar's host emulates: the ``openclaw`` package pinned in
``sidecars/package.json`` (a test keeps the two equal)."""
