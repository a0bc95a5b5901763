"""The gateway's policy hook on every tool call (``Gateway.call_tool``): the adopted
bundles (``gateway policy accept``) decide each call of any ecosystem's tool, by name and
arguments, and each decision names its rule.

``require_approval`` asks the user through the embedding agent's approval handler
(``AgentLink.approve_policy``, else ``AgentLink.approve``; ``gateway shell`` asks on its
terminal) within the rule's ``approval_config.timeout``; with no one to answer, or no
answer in time, the call is refused. An approval for the session (or project) holds for
that rule and tool until the gateway reloads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import anyio

from gateway.host import _codes
from gateway.host._state import GatewayState
from gateway.model import Approval, ApprovalRequest, ToolEntry
from gateway.packages import STORE_UNUSABLE
from gateway.policy import ALLOWED, Decision, PolicyEngine, parse_bundle
from gateway.store import STATE_FILE, PolicyRecords, StateStore, StoreError

__all__ = ["PolicyGate", "Verdict"]


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    decision: Decision
    message: str = ""
    """Why a refused call was refused (the tool result's content)."""


_ALLOWED: Final = Verdict(True, ALLOWED)


class PolicyGate:
    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._engine = PolicyEngine()
        self._approved: set[tuple[str, str]] = set()

    async def load(self) -> None:
        """Read the adopted bundles again (at every load and reload)."""
        self._approved.clear()
        home = self._state.config.home
        if not (home / STATE_FILE).exists():
            self._engine = PolicyEngine()
            return
        try:
            adopted = await anyio.to_thread.run_sync(_adopted, home)
        except StoreError as error:
            self._state.diagnostics.add(STORE_UNUSABLE(f"adopted policies not loaded: {error}"))
            adopted = []
        bundles = []
        for package, raw in adopted:
            bundle, problems = parse_bundle(raw)
            if bundle is None:
                self._state.diagnostics.add(
                    _codes.POLICY_INVALID(
                        f"{package}: its adopted policy is not applied: {'; '.join(problems)}",
                        package=package,
                        hint=f"gateway policy accept {package}",
                    )
                )
                continue
            for note in bundle.notes:
                self._state.diagnostics.add(
                    _codes.POLICY_NOTE(f"{package}: {note}", package=package)
                )
            bundles.append((package, bundle))
        self._engine = PolicyEngine(bundles)

    async def check(self, tool: ToolEntry, arguments: dict[str, object]) -> Verdict:
        if self._engine.empty:  # the common case: nothing adopted, nothing to match
            return _ALLOWED
        state = self._state
        decision = self._engine.decide(
            tool.name, dict(arguments), self._provider(tool.owner), state.session.id,
            anyio.current_time(),
        )  # fmt: skip
        if decision.action == "allow":
            return Verdict(True, decision)
        if decision.action == "require_approval":
            return await self._approval(tool, dict(arguments), decision)
        message = f"Blocked by policy rule {decision.rule}: {decision.reason or 'denied'}"
        self._refused(tool, decision, message)
        return Verdict(False, decision, message)

    def may_use(self, tool: ToolEntry) -> bool:
        """False when the adopted rules deny every call of ``tool`` (tool search never
        names such a tool)."""
        return self._engine.empty or self._engine.may_allow(tool.name, self._provider(tool.owner))

    def _provider(self, owner: str) -> str | None:
        """The installed package that provides a tool registered under ``owner`` (its id,
        ``id#N``, or ``id:tools``)."""
        for status in self._state.packages:
            if owner == status.id or owner.startswith((f"{status.id}#", f"{status.id}:")):
                return status.id
        return None

    async def _approval(
        self, tool: ToolEntry, arguments: dict[str, object], decision: Decision
    ) -> Verdict:
        assert decision.rule is not None
        key = (decision.rule, tool.name)
        if key in self._approved:
            return Verdict(True, Decision("allow", decision.rule, "approved for the session"))
        link = self._state.agent
        ask = link.approve_policy or link.approve
        prompt = decision.approval_message or f"Policy rule {decision.rule}: allow {tool.name}?"
        if ask is None:
            return self._unanswered(tool, decision, "no one can answer")
        request = ApprovalRequest(
            tool=tool.name,
            owner=tool.owner,
            key=f"policy:{decision.rule}",
            prompt=prompt,
            arguments=dict(arguments),
        )
        answer = Approval.DENY
        with anyio.move_on_after(decision.approval_timeout) as scope:
            answer = await ask(request)
        if scope.cancelled_caught:
            return self._unanswered(
                tool, decision, f"no answer within {decision.approval_timeout:g}s"
            )
        if answer is Approval.DENY:
            message = f"Blocked by policy rule {decision.rule}: the user did not approve"
            denied = Decision("deny", decision.rule, "the user did not approve")
            self._refused(tool, denied, message)
            return Verdict(False, denied, message)
        if answer in (Approval.SESSION, Approval.PROJECT):
            self._approved.add(key)
        return Verdict(True, Decision("allow", decision.rule, "approved by the user"))

    def _unanswered(self, tool: ToolEntry, decision: Decision, why: str) -> Verdict:
        message = f"Blocked by policy rule {decision.rule}: it requires approval and {why}"
        self._state.diagnostics.add(
            _codes.POLICY_UNANSWERED(
                f"{tool.name}: {message}", package=tool.owner, contribution=tool.name
            )
        )
        return Verdict(False, Decision("deny", decision.rule, why), message)

    def _refused(self, tool: ToolEntry, decision: Decision, message: str) -> None:
        self._state.diagnostics.add(
            _codes.POLICY_DENIED(
                f"{tool.name}: {message}", package=tool.owner, contribution=tool.name
            )
        )


def _adopted(home: Path) -> list[tuple[str, object]]:
    with StateStore.open(home) as store:
        return [(p.package_id, p.bundle) for p in PolicyRecords(store).adopted()]
