"""Policy rules over every tool call: bundles in rebuno's grammar that a package suggests
(Nu's ``policy.yaml``) and the user adopts (``gateway policy accept ID``), and the engine
that decides each call (allow, deny, or require the user's approval), naming the rule.

``parse_bundle`` reads a bundle; ``PolicyEngine`` decides calls against the adopted ones;
``PolicyGate`` is the gateway's tool-call hook (``Gateway.call_tool``).
"""

from gateway.policy._engine import ALLOWED, Decision, PolicyEngine
from gateway.policy._grammar import DECISIONS, Bundle, Rule, parse_bundle, parse_duration

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
