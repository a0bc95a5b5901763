"""The vocabulary shared by the gateway and its adapters: what a package is (a catalog
entry with its contributions, permissions and dependencies), how it starts (a launch spec,
or a refusal saying why it cannot), and the ``Adapter`` contract that produces both.

An adapter reads a package's metadata (never its code) into a ``CatalogEntry`` and plans
its launch; every runtime it plans speaks the nimlet protocol, so a launch spec is just a
command line and the environment the package declared. The gateway reaches the adapters
through the ``extension_gateway.adapters`` entry point (``gateway.packages``), never by
importing them: adding a runtime is adding an adapter. Everything here is plain data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from gateway.base import Diagnostic, Severity

if TYPE_CHECKING:
    from gateway.model.discovery import Discovery

__all__ = [
    "CONTRIBUTION_KINDS",
    "NANOBOT_CONTRIBUTION_KINDS",
    "RUNTIMES",
    "Adapter",
    "AdapterSet",
    "CallPlan",
    "CallPlanner",
    "CallTool",
    "CatalogEntry",
    "Contribution",
    "Dependency",
    "DiscoveredLaunch",
    "LaunchRefusal",
    "LaunchSpec",
    "Permission",
    "PreparesInstalls",
    "PromptCommand",
    "ServesResources",
    "SharesProcesses",
    "SkillFile",
    "StagesInstalls",
]

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
        "nu-tool",  # Nu tool.yaml tools, a fresh Node process per call
        "declarative",  # metadata only: skills, prompts, themes, declared contracts
    }
)


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
        """An entry named after its folder, until the manifest says otherwise."""
        name = root.name or ecosystem
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


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """A nimlet-protocol process that runs a package (a sidecar hosting its code)."""

    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    """Added to the allow-listed environment: what the package declared it needs."""
    response_timeout: float | None = 30.0
    start_timeout: float | None = None
    """Seconds to wait for ``register``; None: the same as ``response_timeout``. A runtime
    that compiles its package on first start needs longer than one request does."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """What the planner found about how it will run (reported at ``status``)."""
    reads: tuple[Path, ...] = ()
    """What the runtime itself must read and execute beyond the package's own folder: its
    interpreter, its modules, a settings file it is given (``gateway.sandbox``)."""
    writes: tuple[Path, ...] = ()
    """What the runtime must write beyond the package's data and temp folders (e.g. an
    OpenClaw plugin's private ``HOME``)."""
    share_key: str | None = None
    """Packages whose specs carry the same key may run in one process, planned by their
    adapter's ``plan_shared_launch`` (``SharesProcesses``). The gateway groups only those
    with the same granted permissions, environment and timeouts, so packages with different
    permissions never share a process. None: always a process of its own."""
    eager: bool = False
    """Start it with the gateway even when its registration is cached: it does work of its
    own between requests (Nu's watchers), so holding it dormant until first use would stop
    that work."""


@dataclass(frozen=True, slots=True)
class LaunchRefusal:
    """The package cannot be started here; ``reason`` says why (e.g. no runtime yet), and
    ``hint`` what the user can do about it (e.g. ``gateway setup``)."""

    reason: str
    hint: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """The refusal's own diagnostics (a specific code and a hint), reported at ``status``
    beside ``runtime.unavailable``."""


@dataclass(frozen=True, slots=True)
class CallTool:
    """A tool the gateway runs itself, one fresh process per call (Nu's ``tool.yaml``).

    The call's arguments go to stdin as JSON (``payload`` with the arguments added under
    ``args``); the process answers with one JSON document on stdout in MCP's
    ``CallToolResult`` shape (``{content: [...], isError}``). ``{scratch}`` in any element
    of ``command`` is the call's private folder, made before it starts and removed after;
    the child's ``HOME`` and ``TMPDIR`` are that folder."""

    name: str
    description: str
    input_schema: dict[str, Any]
    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    """Everything the child sees besides the locale and time zone: the adapter decides."""
    payload: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = 60.0
    retry_on_crash: bool = False
    """A process that crashes (killed by a signal, or exits without a result) runs the
    call once more."""
    at_most_once: bool = False
    """Journaled in the state store before it starts and marked done after; a call a
    gateway crash interrupted is never run again by itself (``gateway journal``)."""
    capabilities: tuple[str, ...] = ("write", "shell", "network")
    display: dict[str, Any] | None = None
    """How a client shows its calls (Nu's ``client.tools``: icon, title, body)."""
    unavailable: str | None = None
    """Why calls cannot run now (e.g. a secret is not set): each call fails saying so."""
    ecosystem: str = "nimlet"
    reads: tuple[Path, ...] = ()
    """What a call must read and execute beyond the package's folder (its interpreter):
    the call's sandbox is the package's (``gateway.sandbox``) plus these."""


@dataclass(frozen=True, slots=True)
class PromptCommand:
    """A slash command whose reply is a prompt: ``template`` with ``placeholder`` replaced
    by the text after the command (Nu's ``client.commands``)."""

    name: str
    description: str
    template: str
    placeholder: str = "{args}"


@dataclass(frozen=True, slots=True)
class SkillFile:
    """A skill the package offers: listed with the others; the agent reads the file."""

    name: str
    description: str
    path: Path


@dataclass(frozen=True, slots=True)
class CallPlan:
    """What the gateway runs or lists itself for an installed package, beside (or instead
    of) a long-running process: per-call tools, prompt commands, skills, and what the
    planner found."""

    tools: list[CallTool] = field(default_factory=list)
    commands: list[PromptCommand] = field(default_factory=list)
    skills: list[SkillFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DiscoveredLaunch:
    """Extensions an adapter found in its ecosystem's own discovery directories (not
    installed packages), and how to start them."""

    name: str
    """The owner name of what runs, e.g. ``pi:discovered``."""
    origin: Path
    launch: LaunchSpec | LaunchRefusal | None
    """None: nothing to start, only ``diagnostics`` to report (e.g. extensions skipped in
    an untrusted workspace)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


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


class AdapterSet(Protocol):
    """What the ``extension_gateway.adapters`` entry point provides: the adapters in
    detection order, and inspection that picks the right one."""

    @property
    def adapters(self) -> Sequence[Adapter]: ...

    def inspect(self, root: Path) -> CatalogEntry:
        """The entry for the package at ``root`` (the first adapter that detects it)."""
        ...

    def adapter(self, ecosystem: str) -> Adapter | None: ...
