"""After a tool of a confined package failed: when its text shows a host its sandbox could
not reach for want of a network grant, one diagnostic naming the grant
(``gateway.sandbox.explain_unreachable``). The tool's result is never changed."""

from __future__ import annotations

from gateway.host._state import GatewayState
from gateway.model import DECLARES_PERMISSIONS, ToolOutcome
from gateway.sandbox import SandboxPolicy, explain_unreachable

__all__ = ["say_unreachable"]


def say_unreachable(
    state: GatewayState,
    owner: str,
    tool: str,
    policy: SandboxPolicy | None,
    outcome: ToolOutcome,
) -> None:
    """``sandbox.no_network_grant`` into the gateway's diagnostics when ``outcome`` (of
    ``tool``, registered by ``owner``, whose process ran under ``policy``) failed to reach a
    host for that reason; nothing otherwise. Said once per problem, as every diagnostic; the
    call's own diagnostics carry it each time."""
    if policy is None or policy.network.wide:
        return  # unconfined, or the whole network: the failure is the network's own
    package = state.package_of(owner)
    status = next((s for s in state.packages if s.id == package), None)
    requested: list[str] = []
    widen = False
    if status is not None:  # else a discovered extension: granted by its id, declares nothing
        names = [p.name for p in status.entry.permissions]
        requested = [name for name in names if name not in status.package.granted]
        widen = status.entry.ecosystem in DECLARES_PERMISSIONS and "network" not in names
    found = explain_unreachable(
        outcome.content, outcome.is_error, policy, package, tool, requested=requested, widen=widen
    )
    if found is not None:
        state.diagnostics.add(found)
