"""Policy rules over every tool call: bundles in rebuno's grammar that a package suggests
(Nu's ``policy.yaml``) and the user adopts (``gateway policy accept ID``), and the engine
that decides each call (allow, deny, or require the user's approval), naming the rule.

``parse_bundle`` reads a bundle; ``PolicyEngine`` decides calls against the adopted ones;
``PolicyGate`` is the gateway's tool-call hook (``Gateway.call_tool``).
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.policy._engine import ALLOWED as ALLOWED
    from gateway.policy._engine import Decision as Decision
    from gateway.policy._engine import PolicyEngine as PolicyEngine
    from gateway.policy._grammar import DECISIONS as DECISIONS
    from gateway.policy._grammar import Bundle as Bundle
    from gateway.policy._grammar import Rule as Rule
    from gateway.policy._grammar import parse_bundle as parse_bundle
    from gateway.policy._grammar import parse_duration as parse_duration


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
