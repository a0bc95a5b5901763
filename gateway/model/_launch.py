"""How a package runs: a launch spec (a nimlet-protocol process), a refusal saying why it
cannot, what the gateway runs or lists itself instead (per-call tools, prompt commands,
skills), and the extensions an adapter finds in its ecosystem's own discovery directories.
Adapters produce these (``gateway.model.Adapter``); the host consumes them. Plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import NIMLET_TOOL_RULES, Diagnostic, ToolRules

__all__ = [
    "CallPlan",
    "CallTool",
    "DiscoveredLaunch",
    "LaunchRefusal",
    "LaunchSpec",
    "PromptCommand",
    "SkillFile",
]


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
    tool_rules: ToolRules = NIMLET_TOOL_RULES
    """How its tools' names collide, by its ecosystem's rules (``gateway.base.ToolRules``)."""
    programs: tuple[str, ...] = ()
    """The programs its configuration names for it to run (an MCP server's command, a
    hook's program): a bare name is looked up on PATH when it starts. The registration
    cache is keyed on what each resolves to (``gateway.base.command_identity``), and a warm
    session reloads when that changes: one installed later starts it again."""
    depends_on: tuple[str, ...] = ()
    """Anything else its start depends on beyond the package's files, settings, secrets,
    grants and the programs above (e.g. the build of the sidecar's modules): the
    registration cache is keyed on it."""


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
