"""The installed gateway's version, as the distribution records it."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["DISTRIBUTION", "gateway_version"]

DISTRIBUTION = "extension-gateway"


def gateway_version() -> str:
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # pragma: no cover - run from a tree that was never installed
        return "unknown (not installed)"
