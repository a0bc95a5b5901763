"""Deciding one tool call against every adopted bundle.

The rules of all adopted bundles form one list, tried by priority (lowest first; equal
priorities of different packages by package id, then by their order in the bundle); the
first rule whose ``when`` matches decides, and the decision names it
(``<package>:<rule id>``). When no rule matches, the ``default_action`` of the bundle of
the package that provides the tool applies (``<package>:default_action``): a package
cannot set the default for tools it does not know. A tool no adopted bundle provides is
allowed (no rule).

A ``rate_limit`` counts the calls its rule let through within the window (per session for
``execution``, per gateway for ``agent`` and ``global``, in memory); a call over the limit
is denied, naming the rule.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gateway.policy._grammar import Bundle, Rule, as_string

__all__ = ["Decision", "PolicyEngine"]


@dataclass(frozen=True, slots=True)
class Decision:
    action: str
    """``allow``, ``deny`` or ``require_approval``."""
    rule: str | None
    """``<package>:<rule id>`` or ``<package>:default_action``; None: no bundle applies."""
    reason: str = ""
    approval_message: str = ""
    approval_timeout: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.action, "rule": self.rule, "reason": self.reason}


ALLOWED = Decision("allow", None)


class PolicyEngine:
    def __init__(self, bundles: Sequence[tuple[str, Bundle]] = ()) -> None:
        self._bundles = dict(bundles)
        ordered = [
            (rule.priority, package, index, rule)
            for package, bundle in sorted(self._bundles.items())
            for index, rule in enumerate(bundle.rules)
        ]
        self._rules = [(package, rule) for _, package, _, rule in sorted(ordered, key=_order)]
        self._calls: dict[tuple[str, str], deque[float]] = defaultdict(deque)

    @property
    def empty(self) -> bool:
        return not self._bundles

    def decide(
        self,
        tool: str,
        arguments: dict[str, Any],
        provider: str | None,
        session: str,
        now: float,
    ) -> Decision:
        """The decision for a call of ``tool`` (provided by the package ``provider``)."""
        for package, rule in self._rules:
            if not _matches(rule, tool, arguments):
                continue
            name = f"{package}:{rule.id}"
            limited = self._over_limit(name, rule, session, now)
            if limited is not None:
                return Decision("deny", name, limited)
            return Decision(
                rule.decision,
                name,
                rule.reason,
                rule.approval_message,
                rule.approval_timeout,
            )
        bundle = self._bundles.get(provider) if provider is not None else None
        if bundle is None:
            return ALLOWED
        reason = "" if bundle.default_action == "allow" else "no rule allows it"
        return Decision(bundle.default_action, f"{provider}:default_action", reason)

    def may_allow(self, tool: str, provider: str | None) -> bool:
        """Whether some call of ``tool`` could be let through (allowed, or allowed once
        approved): False only when every call is denied whatever its arguments — the first
        rule that matches every call denies, or no rule matches and the
        provider's default denies. Rules that look at arguments may deny some calls and
        not others: those leave the tool usable."""
        for _, rule in self._rules:
            if not _matches_name(rule, tool):
                continue
            if rule.arguments:
                if rule.decision != "deny":
                    return True  # some calls (those arguments) are let through
                continue  # those calls are denied; the others go on down the list
            return rule.decision != "deny"
        bundle = self._bundles.get(provider) if provider is not None else None
        return bundle is None or bundle.default_action != "deny"

    def _over_limit(self, name: str, rule: Rule, session: str, now: float) -> str | None:
        limit = rule.rate_limit
        if limit is None:
            return None
        calls = self._calls[(name, session if limit.per_what == "execution" else "")]
        while calls and now - calls[0] >= limit.window:
            calls.popleft()
        if len(calls) >= limit.max_calls:
            return f"rate limit of {limit.max_calls} calls per {limit.window:g}s reached"
        calls.append(now)
        return None


def _order(item: tuple[int, str, int, Rule]) -> tuple[int, str, int]:
    return item[0], item[1], item[2]


def _matches_name(rule: Rule, tool: str) -> bool:
    """The rule applies to calls of ``tool`` (its arguments aside)."""
    if rule.agent_ids or rule.step_kind not in (None, "tool_call"):
        return False
    return not rule.targets or any(pattern.match(tool) for pattern in rule.targets)


def _matches(rule: Rule, tool: str, arguments: dict[str, Any]) -> bool:
    if not _matches_name(rule, tool):
        return False
    for test in rule.arguments:
        if test.name not in arguments:
            return False
        value = as_string(arguments[test.name])
        if test.equals is not None and value != test.equals:
            return False
        if test.contains is not None and test.contains not in value:
            return False
        if test.one_of is not None and value not in test.one_of:
            return False
        if test.regex is not None and test.regex.search(value) is None:
            return False
    return True
