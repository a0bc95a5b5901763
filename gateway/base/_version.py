"""The gateway's version, written once: ``pyproject.toml`` takes the distribution's version
from ``VERSION`` (setuptools' dynamic ``attr``), so the installed metadata says the same
without ``gateway --version`` paying for ``importlib.metadata`` (20-80 ms on the machines
here, more than the rest of that command)."""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "VERSION", "gateway_version"]

DISTRIBUTION = "extension-gateway"
VERSION = "0.1.0"


def gateway_version() -> str:
    return VERSION
