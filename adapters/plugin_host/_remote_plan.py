"""A package's remote MCP servers in its plugin host's launch: planned once for every
adapter whose packages have them (Agent Plugins, Claude Code plugins), from the catalog
entry's ``remote_servers`` (``_remote_spec``'s shape).

- the configuration's ``remote`` section: each server's transport, URL, headers (values
  still naming ``${VAR}``: the host fills them, so no secret is written into the file) and
  its network grant;
- the configuration's ``sign_ins``: the package's sign-in folder, made here (the sandbox
  names only folders that exist) and writable by the host, which refreshes tokens there;
- the environment: the package's secrets its headers name (``gateway secret``), as Nu
  packages get theirs.

**The network grant.** ``grant`` is ``network:HOST:PORT`` (``_remote_spec.network_grant``),
the optional permission the adapter declares for the server; the sandbox opens the network
to the package when it is granted (``gateway.sandbox.grants_from`` reads any ``network:…``
as the network today; destination-scoped enforcement reads the same name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._remote_spec import network_grant, remote_secrets
from gateway.base import Diagnostic, private_dir
from gateway.model import CatalogEntry
from gateway.packages.secrets import SecretsError, read_secrets
from gateway.packages.sign_ins import sign_in_folder

__all__ = ["RemotePlan", "plan_remote"]


@dataclass(frozen=True, slots=True)
class RemotePlan:
    document: dict[str, Any] = field(default_factory=dict)
    """Added to the host's configuration (``remote``, ``sign_ins``)."""
    env: dict[str, str] = field(default_factory=dict)
    writes: tuple[Path, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def servers(self) -> int:
        return len(self.document.get("remote", {}))


def plan_remote(entry: CatalogEntry, home: Path) -> RemotePlan:
    servers: Mapping[str, Mapping[str, Any]] = entry.metadata.get("remote_servers") or {}
    if not servers:
        return RemotePlan()
    remote = {
        name: {
            "transport": server["transport"],
            "url": server["url"],
            "headers": dict(server.get("headers") or {}),
            "grant": network_grant(str(server["url"])),
        }
        for name, server in servers.items()
    }
    folder = private_dir(sign_in_folder(home, entry.id))
    names = remote_secrets(servers)
    diagnostics: list[Diagnostic] = []
    try:
        stored = read_secrets(home, entry.id) if names else {}
    except SecretsError as error:
        stored = {}
        diagnostics.append(codes.REMOTE_HEADER_UNSET(
            f"the package's secrets cannot be read ({error}); headers naming them have no value",
            package=entry.id,
        ))  # fmt: skip
    return RemotePlan(
        document={"remote": remote, "sign_ins": str(folder)},
        env={name: stored[name] for name in names if name in stored},
        writes=(folder,),
        diagnostics=tuple(diagnostics),
    )
