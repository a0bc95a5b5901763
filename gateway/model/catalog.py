"""The vocabulary shared by the gateway and its adapters: what a package is — a catalog
entry with its contributions, permissions and dependencies — and the kinds and runtimes
those may name. How it starts is ``_launch`` (a launch spec, or a refusal saying why it
cannot); the ``Adapter`` contract that produces both is ``_adapter``; all three are used
through ``gateway.model``.

An adapter reads a package's metadata (never its code) into a ``CatalogEntry`` and plans
its launch; every runtime it plans speaks the nimlet protocol, so a launch spec is just a
command line and the environment the package declared. The gateway reaches the adapters
through the ``extension_gateway.adapters`` entry point (``gateway.packages``), never by
importing them: adding a runtime is adding an adapter. Everything here is plain data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic, Severity

_VERSION_FOLDER = re.compile(r"^[0-9a-f]{32}\Z")
_INSTALLED_PARENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)-[0-9a-f]{8}\Z")

__all__ = [
    "CONTRIBUTION_KINDS",
    "DECLARES_PERMISSIONS",
    "NANOBOT_CONTRIBUTION_KINDS",
    "RUNTIMES",
    "CatalogEntry",
    "Contribution",
    "Dependency",
    "Permission",
    "folder_name",
]


def folder_name(root: Path) -> str:
    """The name of the folder a package is in, by which one without a name of its own is
    named. An installed package's folder is a version folder, ``packages/<id>-<digest>/
    <uuid>``: its name is the folder's it was installed from, which is its id there."""
    installed = _INSTALLED_PARENT.match(root.parent.name)
    if installed is not None and _VERSION_FOLDER.match(root.name):
        return installed.group(1)
    return root.name


# The eleven kinds of the nanobot manifest, in its order (the strictest vocabulary).
NANOBOT_CONTRIBUTION_KINDS: tuple[str, ...] = (
    "tool",
    "skill",
    "channel",
    "llm_provider",
    "transcription_provider",
    "image_generation_provider",
    "web_search_provider",
    "mcp_server",
    "hook",
    "command",
    "webui",
)

# Kinds a contribution may have: nanobot's eleven, plus what the other ecosystems declare
# statically.
CONTRIBUTION_KINDS: frozenset[str] = frozenset(
    {
        *NANOBOT_CONTRIBUTION_KINDS,
        "prompt",  # a prompt template that becomes a slash command (nimlet, Pi)
        "theme",  # a Pi theme file
        "provider",  # an OpenClaw provider contract with no nanobot equivalent
        "cli_command",  # an OpenClaw root CLI command
        "contract",  # any other OpenClaw `contracts` key, kept as metadata
    }
)

# How a package is started. Adapters only name the runtime; launch plans live elsewhere.
RUNTIMES: frozenset[str] = frozenset(
    {
        "nimlet-process",  # a long-running nimlet extension (extension.json)
        "nimlet-tool",  # nimlet tool.json tools, one process per call
        "node-sidecar",  # Pi, OpenClaw and Nu extension modules in the Node sidecar
        "python-sidecar",  # nanobot python extensions
        "plugin-host",  # an Agent Plugin's stdio MCP servers, in one Python plugin host
        "nu-tool",  # Nu tool.yaml tools, a fresh Node process per call
        "declarative",  # metadata only: skills, prompts, themes, declared contracts
    }
)


DECLARES_PERMISSIONS: frozenset[str] = frozenset({"nanobot", "nimlet"})
"""Ecosystems whose packages declare what they need (a nanobot manifest's and a nimlet
extension's permissions): granting one more is the user widening the package's sandbox on
purpose (``gateway permissions … --widen``). Pi, OpenClaw and Nu packages declare none."""


@dataclass(slots=True)
class Contribution:
    """Something a package declares it offers, as far as static metadata can tell."""

    kind: str
    name: str
    description: str = ""
    target: str = ""
    replaces: list[str] = field(default_factory=list)
    # Ecosystem-specific facts (source file, schema, runtime of this one item, ...).
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "description": self.description,
            "target": self.target,
            "replaces": list(self.replaces),
            "detail": dict(self.detail),
        }


@dataclass(slots=True)
class Dependency:
    """An activation prerequisite: python, npm, executable, environment or extension."""

    kind: str
    name: str
    specifier: str = ""
    optional: bool = False
    # True for packages the host runtime supplies (Pi's pi-* peers, OpenClaw's
    # `openclaw`): the sidecar aliases them, so the package must not install its own.
    provided_by_host: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "specifier": self.specifier,
            "optional": self.optional,
            "provided_by_host": self.provided_by_host,
        }


@dataclass(slots=True)
class Permission:
    """A privileged host capability the package asks the user for. An ``optional`` one does
    not gate activation: the package runs without it, and only what needs it is held back
    (e.g. OpenClaw's conversation hooks without ``conversation_access``)."""

    name: str
    reason: str = ""
    optional: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "reason": self.reason}
        if self.optional:
            data["optional"] = True
        return data


@dataclass(slots=True)
class CatalogEntry:
    """What the gateway knows about one package without running any of its code."""

    id: str
    name: str
    version: str
    ecosystem: str
    root: str
    description: str = ""
    runtime: str = "declarative"
    contributions: list[Contribution] = field(default_factory=list)
    permissions: list[Permission] = field(default_factory=list)
    dependencies: list[Dependency] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    config_keys: list[str] = field(default_factory=list)
    # Code entry points, relative to the package root, POSIX separators.
    entries: list[str] = field(default_factory=list)
    # Ecosystem-specific metadata worth keeping (OpenClaw plugin id, Nu namespace, ...).
    metadata: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    enforce_declared: bool = False
    """The manifest lists every tool and command the package may register (nanobot's
    does): anything else its runtime registers is refused, anything listed and never
    registered is reported (docs/protocol.md)."""
    config_closed: bool = False
    """``config_keys`` is the complete list of its settings (Nu's ``config``): ``gateway
    config`` refuses any other key."""

    @classmethod
    def named_after(cls, root: Path, ecosystem: str) -> CatalogEntry:
        """An entry named after its folder (``folder_name``), until the manifest says
        otherwise."""
        name = folder_name(root) or ecosystem
        return cls(id=name, name=name, version="", ecosystem=ecosystem, root=str(root))

    @property
    def ok(self) -> bool:
        """True when no diagnostic is an error."""
        return not any(d.severity is Severity.ERROR for d in self.diagnostics)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "ecosystem": self.ecosystem,
            "root": self.root,
            "description": self.description,
            "runtime": self.runtime,
            "contributions": [c.to_dict() for c in self.contributions],
            "permissions": [p.to_dict() for p in self.permissions],
            "dependencies": [d.to_dict() for d in self.dependencies],
            "secrets": list(self.secrets),
            "config_keys": list(self.config_keys),
            "entries": list(self.entries),
            "metadata": dict(self.metadata),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "enforce_declared": self.enforce_declared,
            "config_closed": self.config_closed,
        }
