"""Seconds a user sets in an environment variable for how long a host waits on a runtime
(``GATEWAY_NANOBOT_TIMEOUT``, ``GATEWAY_PLUGIN_HOST_TIMEOUT``): one reading for all."""

from __future__ import annotations

import os

__all__ = ["environment_seconds"]


def environment_seconds(variable: str, default: float) -> float | None:
    """``variable``'s seconds: ``none`` (or ``null``) waits forever (None); unset, not a
    number, zero or negative is ``default``."""
    raw = os.environ.get(variable, "").strip().lower()
    if raw in ("none", "null"):
        return None
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value > 0 else default
