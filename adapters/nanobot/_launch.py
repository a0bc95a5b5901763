"""How a nanobot package is started: the launch plan for each ``runtime``.

``runtime: python`` packages run in the Python sidecar (``adapters/nanobot/sidecar``), one
sidecar process per package, so a package that blocks, crashes or exits costs only itself.
``pi`` packages run their entries in the Node sidecar's Pi host, ``openclaw`` ones in its
OpenClaw host (their config and ``conversation_access`` grant as for OpenClaw plugins);
``declarative`` packages have no code (skills, MCP server declarations) and never start.

The sidecar starts as ``python -P -m adapters.nanobot.sidecar``: the packages above it
import nothing eagerly, so it loads only itself and the core's vocabulary.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gateway.base import environment_seconds
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec
from gateway.packages import config_path as package_config_path
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.sandbox import package_dirs, python_runtime_paths

__all__ = [
    "SIDECAR_COMMAND",
    "TIMEOUT_VARIABLE",
    "config_path",
    "plan_nanobot",
    "response_timeout",
]

SIDECAR_COMMAND: tuple[str, ...] = (sys.executable, "-P", "-m", "adapters.nanobot.sidecar")
"""How the sidecar starts (``-P``: the workspace, its working directory, is not on
``sys.path``)."""
SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""Where ``adapters`` and ``gateway`` are imported from (site-packages, or a checkout)."""
TIMEOUT_VARIABLE = "GATEWAY_NANOBOT_TIMEOUT"
"""Seconds the host waits for the sidecar's ``register`` and each reply (default 30;
``none`` waits forever). Read by the host when it plans the launch."""
DEFAULT_TIMEOUT = 30.0


def response_timeout() -> float | None:
    return environment_seconds(TIMEOUT_VARIABLE, DEFAULT_TIMEOUT)


def config_path(home: Path, package_id: str) -> Path:
    """A package's configuration: ``GATEWAY_HOME/config/<id>.json`` (one JSON object, set
    with ``gateway config``), given to its ``register(api)`` as ``api.config``."""
    return package_config_path(home, package_id)


def _make_private(path: Path) -> None:
    """0600: a configuration file holds secrets (the user may have made it 0644)."""
    try:
        info = path.stat()
        if info.st_mode & 0o077 and info.st_uid == os.geteuid():
            path.chmod(0o600)
    except OSError:
        pass  # the sidecar reports what it cannot read


def _stored_secrets(home: Path, entry: CatalogEntry) -> dict[str, str]:
    """The values the user stored for the variables the package declares; none when the
    file cannot be read (``status`` shows them unset)."""
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError:
        return {}
    return {name: stored[name] for name in entry.secrets if stored.get(name)}


def plan_nanobot(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
    runtime = entry.metadata.get("nanobot_runtime")
    if entry.runtime == "python-sidecar":
        command = [
            *SIDECAR_COMMAND,
            "--package",
            entry.root,
            "--data-dir",
            str(home / "data"),
        ]
        config = config_path(home, entry.id)
        if config.is_file():
            # The path, never the content: a command line is readable by every process on
            # the machine (`ps`), and configuration holds API keys. The sidecar reads and
            # validates it (nanobot.config_invalid).
            _make_private(config)
            command += ["--config-file", f"{entry.id}={config}"]
        # Declaring an environment dependency is not consent: the user's own variables
        # reach the sidecar only as granted (env:NAME, added by the host). What the user
        # stored for this package (gateway secret set) is theirs to give, so it is passed.
        env = _stored_secrets(home, entry)
        data, _ = package_dirs(home, entry.id)  # made: a sandbox rule needs it there
        return LaunchSpec(
            command=command,
            env=env,
            response_timeout=response_timeout(),
            reads=(*python_runtime_paths(), SOURCE_ROOT, config),
            writes=(data,),
        )
    if runtime == "pi":
        # A nanobot manifest around Pi extension modules: the Pi sidecar hosts them.
        from adapters.pi import plan_pi

        return plan_pi(entry.id, Path(entry.root), list(entry.entries))
    if runtime == "openclaw":
        # A nanobot manifest around OpenClaw plugin modules: the OpenClaw host runs them,
        # with the manifest's tools and commands enforced by the gateway.
        from adapters.openclaw import plan_openclaw

        return plan_openclaw(entry, home)
    return LaunchRefusal(
        "runtime not available: declarative nanobot packages are metadata only (their "
        "skills and MCP server declarations are listed; nothing runs)"
    )
