"""Diagnostics the sidecar reports in ``register.gateway.diagnostics``.

The codes are declared (with severity, trigger and remedy) in ``adapters/_codes.py``; they
are repeated here as plain strings because importing that module would import the gateway
into the sidecar. ``tests/nanobot/test_codes.py`` checks that every code here is catalogued.
"""

from __future__ import annotations

from ._channel import log

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CODES", "Report"]

REGISTER_FAILED = "nanobot.register_failed"
REGISTER_RETURNED_VALUE = "nanobot.register_returned_value"
UNDECLARED_REGISTRATION = "nanobot.undeclared_registration"
REGISTRATION_INVALID = "nanobot.registration_invalid"
REGISTRATION_CONFLICT = "nanobot.registration_conflict"
HOOK_POINT_UNMAPPED = "nanobot.hook_point_unmapped"
HOOK_FACTORY_FAILED = "nanobot.hook_factory_failed"
METADATA_ONLY = "nanobot.contribution_metadata_only"
CONFIG_INVALID = "nanobot.config_invalid"
# The gateway's own code for "declared but never registered" (the host checks tools and
# commands; hooks are checked here because the host cannot see which factory is which).
CONTRIBUTION_MISSING = "package.contribution_missing"

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
