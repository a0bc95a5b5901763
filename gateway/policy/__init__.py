"""Policy rules over every tool call: bundles in rebuno's grammar that a package suggests
(Nu's ``policy.yaml``) and the user adopts (``gateway policy accept ID``), and the engine
that decides each call (allow, deny, or require the user's approval), naming the rule.

``parse_bundle`` reads a bundle; ``PolicyEngine`` decides calls against the adopted ones;
``PolicyGate`` is the gateway's tool-call hook (``Gateway.call_tool``).
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.policy._engine import ALLOWED, Decision, PolicyEngine
    from gateway.policy._grammar import DECISIONS, Bundle, Rule, parse_bundle, parse_duration

_WHERE: dict[str, str] = {
    "ALLOWED": "gateway.policy._engine",
    "Bundle": "gateway.policy._grammar",
    "DECISIONS": "gateway.policy._grammar",
    "Decision": "gateway.policy._engine",
    "PolicyEngine": "gateway.policy._engine",
    "Rule": "gateway.policy._grammar",
    "parse_bundle": "gateway.policy._grammar",
    "parse_duration": "gateway.policy._grammar",
}

__all__ = [
    "ALLOWED",
    "DECISIONS",
    "Bundle",
    "Decision",
    "PolicyEngine",
    "Rule",
    "parse_bundle",
    "parse_duration",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
