"""The user's environment, by consent: a package's process reads a variable of the user's
environment only when the user granted that variable to that package
(``gateway permissions ID env:NAME``).

A declared need (a nanobot ``environment`` dependency, an OpenClaw ``secrets`` name) is a
name, not consent: the gateway's own environment holds its API keys, and handing one over
because a manifest named it would be a credential transfer nobody approved. Declared names
are checked for presence only (``environment_status``), never read for their value here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

__all__ = [
    "ENV_GRANT_PREFIX",
    "describe_environment",
    "env_grant",
    "env_grant_name",
    "environment_status",
    "granted_environment",
]

ENV_GRANT_PREFIX = "env:"
"""``env:NAME`` grants one variable of the user's environment to one package."""

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_grant(name: str) -> str:
    """The permission that passes ``name`` through: ``env:NAME``."""
    return f"{ENV_GRANT_PREFIX}{name}"


def env_grant_name(permission: str) -> str | None:
    """The variable an ``env:NAME`` permission names; None for any other permission (or a
    name no process environment can hold)."""
    if not permission.startswith(ENV_GRANT_PREFIX):
        return None
    name = permission[len(ENV_GRANT_PREFIX) :]
    return name if _NAME.match(name) else None


def granted_environment(
    granted: Iterable[str], source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The variables of ``source`` (the user's environment) the grants pass through, those
    that are set."""
    source = os.environ if source is None else source
    env: dict[str, str] = {}
    for permission in granted:
        name = env_grant_name(permission)
        if name is not None and source.get(name):
            env[name] = source[name]
    return env


def environment_status(
    names: Iterable[str], granted: Iterable[str], source: Mapping[str, str] | None = None
) -> dict[str, dict[str, bool]]:
    """Per declared variable: whether it is set in the user's environment and whether the
    package was granted it. Presence only: a value never leaves this function."""
    source = os.environ if source is None else source
    passed = {env_grant_name(p) for p in granted} - {None}
    return {name: {"set": bool(source.get(name)), "granted": name in passed} for name in names}


def describe_environment(package_id: str, status: Mapping[str, Mapping[str, bool]]) -> str:
    """One phrase for ``status``: each declared variable, whether it is set and whether it
    reaches the package, with the grant that would pass it."""
    parts = []
    for name, state in status.items():
        present = "set" if state.get("set") else "unset"
        if state.get("granted"):
            parts.append(f"{name} {present}, granted")
        else:
            grant = f"gateway permissions {package_id} {env_grant(name)}"
            parts.append(f"{name} {present}, not passed ({grant})")
    return "environment: " + "; ".join(parts)
