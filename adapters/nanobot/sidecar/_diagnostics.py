"""Diagnostics the sidecar reports in ``register.gateway.diagnostics``, with the codes
declared (with severity, trigger and remedy) in ``adapters/nanobot/_codes.py``, and the
host's ``package.contribution_missing``."""

from __future__ import annotations

from adapters.nanobot import _codes as codes
from gateway.host import CONTRIBUTION_MISSING as _CONTRIBUTION_MISSING

from ._channel import log

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CODES", "Report"]

REGISTER_FAILED = codes.NANOBOT_REGISTER_FAILED.code
REGISTER_RETURNED_VALUE = codes.NANOBOT_REGISTER_RETURNED_VALUE.code
UNDECLARED_REGISTRATION = codes.NANOBOT_UNDECLARED_REGISTRATION.code
REGISTRATION_INVALID = codes.NANOBOT_REGISTRATION_INVALID.code
REGISTRATION_CONFLICT = codes.NANOBOT_REGISTRATION_CONFLICT.code
HOOK_POINT_UNMAPPED = codes.NANOBOT_HOOK_POINT_UNMAPPED.code
HOOK_FACTORY_FAILED = codes.NANOBOT_HOOK_FACTORY_FAILED.code
METADATA_ONLY = codes.NANOBOT_CONTRIBUTION_METADATA_ONLY.code
CONFIG_INVALID = codes.NANOBOT_CONFIG_INVALID.code
# The gateway's own code for "declared but never registered" (the host checks tools and
# commands; hooks are checked here because the host cannot see which factory is which).
CONTRIBUTION_MISSING = _CONTRIBUTION_MISSING.code

CODES: tuple[str, ...] = (
    REGISTER_FAILED,
    REGISTER_RETURNED_VALUE,
    UNDECLARED_REGISTRATION,
    REGISTRATION_INVALID,
    REGISTRATION_CONFLICT,
    HOOK_POINT_UNMAPPED,
    HOOK_FACTORY_FAILED,
    METADATA_ONLY,
    CONFIG_INVALID,
    CONTRIBUTION_MISSING,
)


class Report:
    """Diagnostics collected while loading; every one is also logged to stderr, so a host
    that did not negotiate ``register.diagnostics`` (a plain nimlet host) still has them."""

    def __init__(self, prefix_packages: bool) -> None:
        self.items: list[dict[str, Any]] = []
        self._prefix = prefix_packages

    def add(self, code: str, package: str, message: str, contribution: str | None = None) -> None:
        # The host prefixes the owner (the launch's package id); with several packages in
        # one sidecar the message must say which one it is about.
        text = f"{package}: {message}" if self._prefix else message
        item: dict[str, Any] = {"code": code, "message": text}
        if contribution is not None:
            item["contribution"] = contribution
        self.items.append(item)
        log(f"{code}: {package}: {message}")
