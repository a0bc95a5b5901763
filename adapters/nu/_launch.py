"""How a Nu package's extension modules run: in the Node sidecar, as its Nu host
(``sidecars/lib/nu/``), next to Pi packages and OpenClaw plugins.

"Extensions run with Nu's own access, unlike tools. Only install ones you trust": they run
only after the package passed its gates (trust among them), with the gateway's access.
The spec the host loads carries the package's entries, the path of its settings file
(``nu.config``; a path, never the content: argv is public) and the names of its secrets;
their values travel in the sidecar's environment, for ``nu.secret(name)``. The sidecar
starts with the gateway (``LaunchSpec.eager``), not at first use as other cached runtimes
do.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from adapters._sidecar import plan_sidecar, request_timeout
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec
from gateway.packages import config_path
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.runtime import MIN_SIDECAR_NODE

__all__ = ["TIMEOUT_VARIABLE", "nu_package_spec", "plan_extensions"]

TIMEOUT_VARIABLE: Final = "GATEWAY_NU_TIMEOUT"
"""Per-request seconds for Nu extensions (default 60)."""


def nu_package_spec(entry: CatalogEntry, home: Path) -> dict[str, Any]:
    """The package as the sidecar's Nu host loads it (docs/nu.md)."""
    root = Path(entry.root)
    return {
        "id": entry.id,
        "host": "nu",
        "root": str(root.resolve()),
        "entries": [str((root / rel).resolve()) for rel in entry.entries],
        "namespace": entry.metadata.get("namespace"),
        "configFile": str(config_path(home, entry.id)),
        "configKeys": list(entry.config_keys),
        "secrets": list(entry.secrets),
    }


def plan_extensions(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
    try:
        stored = read_secrets(home, entry.id)
    except SecretsError as error:
        return LaunchRefusal(f"its secrets cannot be read: {error}")
    env = {name: stored[name] for name in entry.secrets if name in stored}
    spec = nu_package_spec(entry, home)
    # The sandbox lets the sidecar read this package's settings file and no other's.
    reads = [config_path(home, entry.id)]
    planned = plan_sidecar(
        [spec], env, request_timeout(TIMEOUT_VARIABLE), MIN_SIDECAR_NODE, reads=reads
    )
    # Started with the gateway, never held dormant until first use: a watcher works
    # between requests, and Nu's hooks run on every turn anyway.
    return replace(planned, eager=True) if isinstance(planned, LaunchSpec) else planned
