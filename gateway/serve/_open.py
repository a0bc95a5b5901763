"""Opening the gateway a ``gateway serve`` runs: the packages it serves and its diagnostics
on stderr (stdout is the protocol).

Both serve modes share it: the gates apply exactly as for the CLI (installed packages pass
their four gates; the workspace's own extensions load only when it is trusted), and a
``serve`` started by a gateway that was itself started by ``serve`` counts its depth, so a
workspace whose extension serves that same workspace cannot recurse without end. An
installed package whose registration is cached is listed from the cache without waiting
for its start; the servers then warm every runtime in the background (``Gateway.warm``),
so a call costs a round trip, not a start, once the client gets to it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

from gateway.base import Diagnostic, GatewayConfig, GatewayError, did_you_mean
from gateway.host import Gateway, open_gateway
from gateway.model import AgentLink, SessionEffect
from gateway.serve._codes import (
    SERVE_NESTED_TOO_DEEP,
    SERVE_PACKAGE_INACTIVE,
    SERVE_PACKAGE_UNKNOWN,
)
from gateway.serve._report import ServeReport
from gateway.serve._search_options import ToolSearchOptions
from gateway.wire import UiHandler

if TYPE_CHECKING:
    from gateway.serve._mcp import McpBridge

_WARM_AFTER = 1.0
"""Seconds ``serve_bridge`` waits for the client's first listing before it starts the
runtimes."""

__all__ = ["DEPTH_VARIABLE", "MAX_DEPTH", "ServeError", "ServeOptions", "open_served"]

DEPTH_VARIABLE = "GATEWAY_SERVE_DEPTH"
"""How many ``gateway serve`` processes stand above this one; passed to its children."""
MAX_DEPTH = 4


class ServeError(GatewayError):
    """The server cannot start; ``diagnostic`` says why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(frozen=True, slots=True)
class ServeOptions:
    workspace: Path
    packages: tuple[str, ...] = ()
    """Serve only these installed packages (and what they depend on); () serves everything
    the gateway loads for the workspace."""
    trust: bool | None = None
    """The workspace's trust for this run; None: as ``gateway trust`` recorded it."""
    plan: bool = False
    config: GatewayConfig = dataclasses.field(default_factory=GatewayConfig)
    workspace_given: bool = True
    """False: ``workspace`` is a default, and ``serve --nimlet`` takes the host's."""
    strict: bool = False
    """``--mcp``: withhold descriptions that look like instructions to the model."""
    tool_search: ToolSearchOptions = dataclasses.field(default_factory=ToolSearchOptions)
    """``--mcp``: when ``tools/list`` is the pinned tools and the search meta-tools."""
    metrics: str | None = None
    """``--mcp``: Prometheus ``/metrics`` on a listener of its own (``[HOST:]PORT``), or
    ``token`` (on the ``--http`` address, for metrics tokens); None: no metrics endpoint."""
    audit_arguments: bool = False
    """``--http``: the audit log keeps each call's arguments and result too."""
    lockfile: Path | None = None
    """``--mcp``: sync this lockfile whenever it changes, and serve the new package set."""
    quiet: bool = False
    """``-q``: errors only on stderr (``_report``)."""
    verbose: bool = False
    """``-v``: each warning said while the gateway starts in full, not one line per
    package (``_report``)."""

    def report(self) -> ServeReport:
        """The listener of these options' diagnostics: held until ``started``."""
        return ServeReport(quiet=self.quiet, verbose=self.verbose)


def _depth() -> int:
    try:
        return max(0, int(os.environ.get(DEPTH_VARIABLE, "0")))
    except ValueError:
        return 0


@asynccontextmanager
async def open_served(
    options: ServeOptions,
    *,
    ui: UiHandler | None = None,
    agent: AgentLink | None = None,
    on_effect: Callable[[SessionEffect], None] | None = None,
    on_diagnostic: Callable[[Diagnostic], None] | None = None,
) -> AsyncIterator[Gateway]:
    """The gateway behind a server. Raises ``ServeError`` before starting anything when
    nesting is too deep, and after loading when a named package is not installed. Packages
    whose registration is cached are still dormant when it yields: ``Gateway.warm``
    starts them."""
    depth = _depth()
    if depth >= MAX_DEPTH:
        raise ServeError(
            SERVE_NESTED_TOO_DEEP(
                f"gateway serve is nested {depth} levels deep (at most {MAX_DEPTH - 1}); "
                f"refusing to start another one in {options.workspace}"
            )
        )
    # The children (one of them may be another `gateway serve`) learn the depth.
    os.environ[DEPTH_VARIABLE] = str(depth + 1)
    config = dataclasses.replace(
        options.config,
        hold_eager=True,  # listed from the cache too: the servers warm every runtime next
        packages=options.packages or None,
        passthrough_env=(*options.config.passthrough_env, DEPTH_VARIABLE),
    )
    async with open_gateway(
        options.workspace,
        trust=options.trust,
        plan=options.plan,
        config=config,
        ui=ui,
        agent=agent,
        on_effect=on_effect,
        on_diagnostic=on_diagnostic,
    ) as gateway:
        _check_packages(gateway, options.packages)
        yield gateway


def _check_packages(gateway: Gateway, wanted: tuple[str, ...]) -> None:
    statuses = {status.id: status for status in gateway.packages}
    for package_id in wanted:
        status = statuses.get(package_id)
        if status is None:
            raise ServeError(
                SERVE_PACKAGE_UNKNOWN(
                    f"package {package_id!r} is not installed in {gateway.config.home}"
                    f"{did_you_mean(package_id, statuses)}",
                    package=package_id,
                    hint=f"gateway install SRC, or check `gateway status` (GATEWAY_HOME="
                    f"{gateway.config.home})",
                )
            )
        if not status.active:
            gateway.diagnostics.add(
                SERVE_PACKAGE_INACTIVE(
                    f"package {package_id} is not active ({'; '.join(status.reasons)}); "
                    "it offers nothing",
                    package=package_id,
                    hint=f"gateway status; gateway trust {package_id}; gateway enable {package_id}",
                )
            )


async def serve_bridge(
    options: ServeOptions,
    bridge: McpBridge,
    report: ServeReport,
    *,
    attached: anyio.Event | None = None,
    warm_after: anyio.Event | None = None,
    stop: anyio.Event | None = None,
) -> None:
    """Open the gateway for ``bridge`` (stdio or HTTP) and serve it until ``stop`` is set
    (or until cancelled): attach it (then set ``attached``), start the session, start every
    runtime — once ``warm_after`` is set or a second has passed, when given — and wait; then
    end the session, bounded, and close. A server stops through ``stop``: a cancellation
    from outside cancels the gateway's own tasks as well — the runtimes' readers among
    them — so the session's end would reach no package (it is still sent, shielded).
    Raises ``ServeError`` when the gateway cannot open. What the gateway says while it opens
    and warms is held by ``report`` and said once it is warm, or when it stops first."""
    try:
        async with open_served(options, ui=bridge.ask, on_diagnostic=report) as gateway:
            bridge.attach(gateway)
            if attached is not None:
                attached.set()
            try:
                async with anyio.create_task_group() as serving:
                    if stop is not None:
                        serving.start_soon(_cancel_when_set, stop, serving.cancel_scope)
                    await _serve(gateway, bridge, options, report, warm_after)
                    serving.cancel_scope.cancel()  # done before any stop: so is the watcher
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    await gateway.end_session()
    finally:
        report.started()  # a server stopped while its runtimes started says it too


async def _serve(
    gateway: Gateway,
    bridge: McpBridge,
    options: ServeOptions,
    report: ServeReport,
    warm_after: anyio.Event | None,
) -> None:
    """The session started, the runtimes warm, then the package set followed: until
    cancelled."""
    from gateway.serve._heap import settle
    from gateway.serve._reload import follow_package_set

    await gateway.start_session()
    bridge.started()
    if warm_after is not None:
        # The runtimes compete for the CPU once the client's first listing is answered
        # (or has not come within a second); a call that comes first starts what it
        # needs itself.
        with anyio.move_on_after(_WARM_AFTER):
            await warm_after.wait()
        await anyio.lowlevel.checkpoint()
    await gateway.warm()
    report.started()
    settle()  # what exists now lives as long as the server (``_heap``)
    await follow_package_set(gateway, options.lockfile, report)


async def _cancel_when_set(event: anyio.Event, scope: anyio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


STOP_WITHIN = 15.0
"""Seconds a server gives its gateway to end the session and stop its runtimes once told
to stop; then it is cancelled."""


async def stopped(stop: anyio.Event, served: anyio.Event) -> None:
    """Tell ``serve_bridge`` to stop and wait (bounded) until it has: the session ended,
    the runtimes stopped."""
    stop.set()
    with anyio.move_on_after(STOP_WITHIN):
        await served.wait()
