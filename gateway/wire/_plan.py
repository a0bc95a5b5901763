"""What the process layer is told: how to start one extension (``LaunchPlan``), and the
knobs of its transport (``TransportConfig``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gateway.base import NIMLET_TOOL_RULES, ToolRules
from gateway.sandbox import SandboxPolicy
from gateway.wire._framing import DEFAULT_LINE_CAP
from gateway.wire.features import EXTENSION_FEATURES

__all__ = ["LaunchPlan", "TransportConfig"]


@dataclass(frozen=True, slots=True)
class TransportConfig:
    line_cap: int = DEFAULT_LINE_CAP
    shutdown_grace: float = 0.5
    """Seconds between closing stdin and SIGTERM to the group."""
    term_grace: float = 1.0
    """Seconds between SIGTERM and SIGKILL."""
    require_sandbox: bool = False
    """Refuse to start a confined process the kernel cannot fully confine."""


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    """What to start: produced from a manifest (or an adapter), consumed here."""

    name: str
    command: list[str]
    cwd: Path
    env: dict[str, str]
    log_path: Path
    response_timeout: float | None = 30.0
    origin: Path | None = None
    start_timeout: float | None = None
    """Seconds to wait for ``register``; None: ``response_timeout`` (nimlet's rule)."""
    restart: bool = False
    """Restart with backoff after an unexpected exit (the runtimes adapters plan); plain
    nimlet extensions keep nimlet's fail-open rule and stay down until a reload."""
    features: frozenset[str] = EXTENSION_FEATURES
    """The negotiated additions ``initialize`` announces to it (``gateway.wire.features``); the
    host reads an extra, or answers a ``host_request``, only when it was announced."""
    sandbox: SandboxPolicy | None = None
    """What the process may touch (``gateway.sandbox``); None runs it unconfined (only
    where confinement is switched off: ``GatewayConfig.sandbox``)."""
    members: tuple[str, ...] = ()
    """The packages a process shared by several hosts, in load order (empty: one package,
    or an extension of its own); each keeps its own registry owner (``register.owners``)."""
    tool_rules: ToolRules = NIMLET_TOOL_RULES
    """How its tools' names collide (an adapter's ``LaunchSpec.tool_rules``)."""
    grants_id: str | None = None
    """The id the user's grants to it are kept under (``gateway permissions ID``), when
    not its name: ``nimlet:NAME`` for a discovered ``extension.json`` extension."""

    @property
    def identity(self) -> str:
        """What it is kept under — its grants, its cached registration, the package of its
        registry owners: ``grants_id``, else its name. Unique where names are not: a
        workspace extension ``notes`` and an installed package ``notes`` both run."""
        return self.grants_id or self.name
