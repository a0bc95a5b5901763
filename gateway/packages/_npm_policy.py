"""The sandbox npm runs in during an install: npm is the user's tool fetching on the user's
behalf, so it reaches the network (any registry, any proxy), but it reads only the system,
its own Node installation and the configuration it is told to use, and it writes only the
install's staging folder and the gateway's npm cache. Scripts are off and a package's
``.npmrc`` is never read (``_npm``); this keeps a package that found a way past both — or
npm itself misbehaving — from the user's home, other packages and the gateway's store.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.sandbox import NetworkAccess, SandboxPolicy, node_runtime_paths, system_policy

__all__ = ["NpmConfinement", "npm_policy"]

_CA_VARIABLES = ("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "npm_config_cafile")
"""Certificate files a user behind a proxy points npm at (read, never written)."""
_FILE_KEYS = frozenset({"cafile", "certfile", "keyfile"})
"""Keys of an npmrc whose value is a file npm must read."""


@dataclasses.dataclass(frozen=True, slots=True)
class NpmConfinement:
    policy: SandboxPolicy
    required: bool
    """``GATEWAY_REQUIRE_SANDBOX``: npm does not start where the kernel cannot enforce it."""


def npm_policy(
    npm: list[str],
    home: Path,
    *,
    configs: Iterable[Path],
    writable: Iterable[Path],
    environ: Mapping[str, str] | None = None,
) -> NpmConfinement | None:
    """The confinement of one npm run (``None`` when the sandbox is switched off:
    ``GATEWAY_SANDBOX=off``, unless ``GATEWAY_REQUIRE_SANDBOX`` is set)."""
    config = GatewayConfig(home=home)
    if not (config.sandbox or config.require_sandbox):
        return None
    environ = os.environ if environ is None else environ
    configs = [path for path in configs if path.is_file()]
    reads = [*configs, *_named_in(configs), *_named_by(environ)]
    runtime = [*node_runtime_paths(npm[0]), *(Path(part).parent for part in npm[1:2])]
    policy = dataclasses.replace(system_policy(), network=NetworkAccess(connect=True))
    allowed = policy.allowing(
        read=_existing(reads), execute=_existing(runtime), write=_existing(writable)
    )
    return NpmConfinement(allowed, config.require_sandbox)


def _named_in(configs: Iterable[Path]) -> list[Path]:
    """Files an npmrc names (``cafile=…``), ``~`` expanded as npm does."""
    found = []
    for config in configs:
        try:
            lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() in _FILE_KEYS and value.strip():
                found.append(Path(value.strip().strip("\"'")).expanduser())
    return found


def _named_by(environ: Mapping[str, str]) -> list[Path]:
    lowered = {name.lower(): value for name, value in environ.items()}
    return [Path(lowered[name.lower()]).expanduser() for name in _CA_VARIABLES
            if lowered.get(name.lower())]  # fmt: skip


def _existing(paths: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(Path(os.path.abspath(p)) for p in paths if p.exists()))
