"""The ``Adapter`` contract: one ecosystem reads its packages' metadata into catalog entries
and plans how they start; the optional protocols beside it are what some adapters can do
more (share a process, serve files, prepare or stage installs, plan per-call tools), which
the gateway checks with ``isinstance``. ``AdapterSet`` is what the
``extension_gateway.adapters`` entry point provides (``gateway.packages``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from gateway.base import Diagnostic
from gateway.model._launch import CallPlan, DiscoveredLaunch, LaunchRefusal, LaunchSpec
from gateway.model.catalog import CatalogEntry

if TYPE_CHECKING:
    from gateway.model._sign_in import RemoteServer, SignedIn, SignInPrompt
    from gateway.model.discovery import Discovery

__all__ = [
    "Adapter",
    "AdapterSet",
    "CallPlanner",
    "PackageRequirement",
    "PreparesInstalls",
    "RequiresPackages",
    "ServesConfiguredResources",
    "ServesResources",
    "SharesProcesses",
    "SignsIn",
    "StagesInstalls",
]


@runtime_checkable
class Adapter(Protocol):
    """One ecosystem: reads its packages' metadata and plans how they start. No method may
    raise for bad input; problems are diagnostics (or a refusal)."""

    ecosystem: str

    def detect(self, root: Path) -> bool:
        """Is ``root`` a package root of this ecosystem? Cheap: file existence and keys."""
        ...

    def inspect(self, root: Path) -> CatalogEntry:
        """Read the package's metadata into an entry; problems become diagnostics."""
        ...

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal | None:
        """How an installed package of this ecosystem starts: a spec, a refusal saying why
        it cannot, or None when there is nothing to start: the gateway serves it itself
        (nimlet's own formats, the resources of a ``ServesResources`` adapter, the
        ``CallPlan`` of a ``CallPlanner``)."""
        ...

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        """Extensions in the ecosystem's own discovery directories (e.g. Pi's
        ``.pi/extensions``); most ecosystems have none and return []."""
        ...


@runtime_checkable
class SharesProcesses(Protocol):
    """An adapter whose runtime can host several packages in one process (its specs carry a
    ``share_key``)."""

    def plan_shared_launch(
        self, entries: Sequence[CatalogEntry], home: Path
    ) -> LaunchSpec | LaunchRefusal:
        """One process hosting ``entries`` (in load order), which must tell the host which
        package registered what (negotiated ``register.owners``)."""
        ...


@runtime_checkable
class ServesResources(Protocol):
    """An adapter whose packages ship files the gateway serves itself — skills it lists and
    prompt templates that become slash commands — beside or instead of a process."""

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        """The skills and prompt templates of an installed package (prompts owned by the
        package, expanded by the ecosystem's rules). Reads files; runs nothing."""
        ...


@runtime_checkable
class ServesConfiguredResources(Protocol):
    """A ``ServesResources`` adapter whose served text takes the package's settings (a
    Claude Code plugin's ``${user_config.KEY}``): the gateway asks this instead, with its
    home, where the settings are kept."""

    def configured_resources(self, entry: CatalogEntry, home: Path) -> Discovery:
        """``package_resources``, with the package's stored settings applied."""
        ...


@runtime_checkable
class PreparesInstalls(Protocol):
    """An adapter with work to do once a package is installed, before it first runs, that
    runs none of the package's code (e.g. compiling its TypeScript into the cache its first
    start reads)."""

    def prepare_install(self, entry: CatalogEntry, home: Path) -> list[Diagnostic]:
        """Prepare the installed package ``entry`` (its root is the installed folder). Never
        raises; a failure is a diagnostic and the install stands."""
        ...


@runtime_checkable
class CallPlanner(Protocol):
    """An adapter whose packages offer what the gateway runs itself (``CallPlan``)."""

    def plan_calls(self, entry: CatalogEntry, home: Path) -> CallPlan:
        """The per-call tools and prompt commands of an installed package."""
        ...


@runtime_checkable
class StagesInstalls(Protocol):
    """An adapter whose installs produce files inside the package (Nu bundles its tools),
    so that the content the user trusts covers them."""

    def stage_install(
        self, entry: CatalogEntry, root: Path, previous: Path | None
    ) -> list[Diagnostic]:
        """Called by ``install`` on the staged package before it is hashed and placed
        (``previous``: the installed version it replaces). Runs no package code."""
        ...


@dataclass(frozen=True, slots=True)
class OfferedSource:
    """A package a collection offers from elsewhere: a git URL (``URL#REF``), an npm spec,
    or an archive's https URL, which ``install`` fetches with its own fetchers, as if the
    user had named it."""

    kind: str  # git | npm | archive
    location: str
    path: str | None = None
    """git: the package's folder inside the repository (relative; the installer keeps it
    under the clone's root)."""
    sha256: str | None = None
    """archive: the hex SHA-256 the archive must have before anything is unpacked."""


@runtime_checkable
class OffersPackages(Protocol):
    """An adapter that reads folders offering several packages (a Claude Code or Codex
    marketplace), so that ``install FOLDER#NAME`` installs one of them."""

    def select_offered(
        self, root: Path, name: str | None
    ) -> Path | OfferedSource | list[Diagnostic] | None:
        """The folder inside ``root`` of the package ``name``, or where to fetch it; None
        when ``root`` offers no packages; diagnostics when it cannot be had (``name`` None:
        which it offers). Reads files only."""
        ...


@dataclass(frozen=True, slots=True)
class PackageRequirement:
    """A package another one needs, which ``install COLLECTION#NAME`` installs from the same
    collection (a Claude Code plugin's ``dependencies``)."""

    name: str
    constraint: str = ""
    """The version range as the package wrote it (shown; empty: any version)."""
    collection: str | None = None
    """Another collection the package names for it (by name): the installer cannot reach
    it, as it knows collections by location only."""
    accepts: Callable[[str], bool | None] = lambda version: True
    """Whether a version satisfies ``constraint``; None when it cannot be read."""


@runtime_checkable
class RequiresPackages(Protocol):
    """An adapter whose packages name other packages of their collection that they need."""

    def package_requirements(self, entry: CatalogEntry) -> list[PackageRequirement]:
        """The packages ``entry`` needs, in its order (reads metadata only)."""
        ...


@runtime_checkable
class SignsIn(Protocol):
    """An adapter whose packages connect to remote MCP servers a person may have to sign in
    to (OAuth 2.1): what ``gateway auth`` runs."""

    def remote_servers(self, entry: CatalogEntry) -> list[RemoteServer]:
        """The package's remote servers, in its order (reads metadata only)."""
        ...

    async def sign_in(
        self, entry: CatalogEntry, home: Path, server: str, prompt: SignInPrompt
    ) -> SignedIn:
        """Sign a person in to ``server`` (metadata discovery, client registration, PKCE,
        a loopback redirect) and keep the tokens with the package's sign-ins. Raises
        ``SignInFailed``."""
        ...


class AdapterSet(Protocol):
    """What the ``extension_gateway.adapters`` entry point provides: the adapters in
    detection order, and inspection that picks the right one."""

    @property
    def adapters(self) -> Sequence[Adapter]: ...

    def inspect(self, root: Path, ecosystem: str | None = None) -> CatalogEntry:
        """The entry for the package at ``root``: read by ``ecosystem``'s adapter (an
        installed package's recorded one), else by the first adapter that detects it."""
        ...

    def adapter(self, ecosystem: str) -> Adapter | None: ...

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        """What every adapter finds in its ecosystem's own discovery directories, in
        detection order (``Adapter.discover``). A set may skip, and not even load, an adapter
        that can find nothing there (the built-in set checks its folders first)."""
        ...
