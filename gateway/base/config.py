"""Gateway configuration: where state lives and the knobs of the process layer."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["DEFAULT_LINE_CAP", "DEFAULT_OUTPUT_CAP", "GatewayConfig"]

DEFAULT_LINE_CAP = 16 * 1024 * 1024
"""The longest JSON line an extension may send (the nimlet wire's framing cap)."""
DEFAULT_OUTPUT_CAP = 100_000
"""The most characters a ``tool.json`` tool's output may hold."""


def _default_home() -> Path:
    return Path(os.environ.get("GATEWAY_HOME") or Path.home() / ".gateway").expanduser()


def _require_sandbox() -> bool:
    return os.environ.get("GATEWAY_REQUIRE_SANDBOX", "").strip().lower() in ("1", "true", "yes")


def _sandbox() -> bool:
    return os.environ.get("GATEWAY_SANDBOX", "").strip().lower() not in ("0", "off", "false", "no")


def _plain_v1() -> bool:
    return os.environ.get("GATEWAY_PLAIN_V1", "").strip().lower() in ("1", "true", "yes")


def _default_passthrough() -> tuple[str, ...]:
    raw = os.environ.get("GATEWAY_PASSTHROUGH_ENV", "")
    return tuple(name.strip() for name in raw.split(",") if name.strip())


@dataclass(frozen=True, slots=True)
class GatewayConfig:
    home: Path = field(default_factory=_default_home)
    """State: trust, sessions, extension logs. ``GATEWAY_HOME``, default ``~/.gateway``."""
    user_home: Path = field(default_factory=Path.home)
    """Where the user-global roots live (``~/.agents``, ``~/.nimlet``)."""
    passthrough_env: tuple[str, ...] = field(default_factory=_default_passthrough)
    """Extra variables children may see, beyond the allow-list (e.g. an API token).
    ``GATEWAY_PASSTHROUGH_ENV=NAME,NAME`` sets it from the environment."""
    line_cap: int = DEFAULT_LINE_CAP
    shutdown_grace: float = 0.5
    term_grace: float = 1.0
    tool_output_cap: int = DEFAULT_OUTPUT_CAP
    lazy_start: bool = True
    """Installed packages whose registration is cached start on the first use of one of
    their tools, commands or hooks; False starts every active package at once."""
    hold_eager: bool = False
    """Hold dormant even the cached runtimes that would start with the gateway (``eager``:
    Nu's watchers), for a caller that starts every runtime itself right after
    (``Gateway.warm``): ``gateway serve`` lists from the cache first, then warms."""
    sandbox: bool = field(default_factory=_sandbox)
    """Confine every process the gateway starts (docs/security.md). ``GATEWAY_SANDBOX=off``
    runs them unconfined, as hosts without a sandbox do."""
    shared_processes: bool = True
    """Installed packages the user grouped (``gateway group``) whose runtime can host
    several (the Node sidecar) share one process per permission set; False gives every
    package its own process whatever its group. Ungrouped packages always run alone."""
    require_sandbox: bool = field(default_factory=_require_sandbox)
    """Refuse to start anything the kernel cannot confine fully (``sandbox.refused``)
    instead of running it with the fallback checks. ``GATEWAY_REQUIRE_SANDBOX=1``."""
    plain_v1: bool = field(default_factory=_plain_v1)
    """Strict plain nimlet v1: no process is offered a negotiated addition, and
    ``initialize`` carries no ``gateway`` field, as from a real nimlet host (what a package
    migrated with ``gateway migrate --to nimlet`` must work under). ``GATEWAY_PLAIN_V1=1``."""
    watch_inputs: bool = False
    """Remember what each load read (the store, settings, discovery, the programs packages
    name on PATH) so ``Gateway.inputs_changed`` can tell a gateway kept open across runs
    (the CLI's warm session) that it must load again; a one-shot run need not pay for it."""
    packages: tuple[str, ...] | None = None
    """Load only these installed packages (and the packages they depend on), and nothing
    discovered in the workspace or the user's roots (``gateway serve --package``). None:
    everything, as usual."""

    @property
    def sessions_dir(self) -> Path:
        return self.home / "sessions"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"
