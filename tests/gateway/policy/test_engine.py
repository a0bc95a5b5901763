"""Deciding tool calls: first match by priority across adopted bundles, the providing
package's default action, argument predicates compared as strings, rate limits."""

from __future__ import annotations

from typing import Any

from gateway.policy import PolicyEngine, parse_bundle


def engine(**bundles: dict[str, Any]) -> PolicyEngine:
    parsed = []
    for package, data in bundles.items():
        bundle, problems = parse_bundle(data)
        assert bundle is not None, problems
        parsed.append((package.replace("_", "-"), bundle))
    return PolicyEngine(parsed)


def decide(policy: PolicyEngine, tool: str, arguments: dict[str, Any] | None = None,
           provider: str | None = None, session: str = "s1", now: float = 0.0) -> tuple[str, str | None]:  # fmt: skip
    decision = policy.decide(tool, arguments or {}, provider, session, now)
    return decision.action, decision.rule


def allow(rule_id: str, priority: int, **when: Any) -> dict[str, Any]:
    return {"id": rule_id, "priority": priority, "when": when, "then": {"decision": "allow"}}


def deny(rule_id: str, priority: int, **when: Any) -> dict[str, Any]:
    return {"id": rule_id, "priority": priority, "when": when,
            "then": {"decision": "deny", "reason": f"{rule_id} says no"}}  # fmt: skip


def test_the_first_matching_rule_by_priority_decides_and_is_named() -> None:
    policy = engine(
        pkg={"rules": [allow("broad", 20, target="*"), deny("narrow", 10, target="rm")]}
    )
    assert decide(policy, "rm") == ("deny", "pkg:narrow")
    assert decide(policy, "ls") == ("allow", "pkg:broad")


def test_rules_of_every_adopted_bundle_form_one_list() -> None:
    policy = engine(
        first={"default_action": "allow", "rules": [allow("late", 50, target="x")]},
        second={"default_action": "allow", "rules": [deny("early", 5, target="x")]},
    )
    assert decide(policy, "x") == ("deny", "second:early")


def test_equal_priorities_of_two_packages_go_by_package_id() -> None:
    policy = engine(
        zeta={"rules": [allow("z", 1, target="x")]}, alpha={"rules": [deny("a", 1, target="x")]}
    )
    assert decide(policy, "x") == ("deny", "alpha:a")


def test_no_match_uses_the_default_action_of_the_tools_package_only() -> None:
    policy = engine(pkg={"default_action": "deny", "rules": [allow("one", 1, target="pkg__one")]})
    assert decide(policy, "pkg__two", provider="pkg") == ("deny", "pkg:default_action")
    assert decide(policy, "bash", provider=None) == ("allow", None)
    assert decide(policy, "other__tool", provider="other") == ("allow", None)


def test_argument_predicates_compare_values_as_strings() -> None:
    policy = engine(pkg={"default_action": "allow", "rules": [
        deny("eq", 1, arguments={"count": {"equals": "5"}}),
        deny("has", 2, arguments={"path": {"contains": ".ssh"}}),
        deny("one", 3, arguments={"mode": {"one_of": ["w", "a"]}}),
        deny("re", 4, arguments={"cmd": {"regex": r"rm\s+-rf"}}),
        deny("flag", 5, arguments={"force": {"equals": True}}),
    ]})  # fmt: skip
    assert decide(policy, "t", {"count": 5}, "pkg") == ("deny", "pkg:eq")
    assert decide(policy, "t", {"path": "/home/u/.ssh/id"}, "pkg") == ("deny", "pkg:has")
    assert decide(policy, "t", {"mode": "a"}, "pkg") == ("deny", "pkg:one")
    assert decide(policy, "t", {"cmd": "sudo rm  -rf /"}, "pkg") == ("deny", "pkg:re")
    assert decide(policy, "t", {"force": True}, "pkg") == ("deny", "pkg:flag")
    assert decide(policy, "t", {"count": 6, "mode": "r", "cmd": "ls"}, "pkg") == (
        "allow",
        "pkg:default_action",
    )


def test_a_predicate_on_a_missing_argument_does_not_match() -> None:
    policy = engine(
        pkg={
            "default_action": "allow",
            "rules": [deny("has", 1, arguments={"path": {"contains": "x"}})],
        }
    )
    assert decide(policy, "t", {}, "pkg") == ("allow", "pkg:default_action")


def test_when_fields_are_anded() -> None:
    policy = engine(pkg={"default_action": "allow", "rules": [
        deny("both", 1, target="send", arguments={"to": {"equals": "all"}})
    ]})  # fmt: skip
    assert decide(policy, "send", {"to": "all"}, "pkg") == ("deny", "pkg:both")
    assert decide(policy, "send", {"to": "bob"}, "pkg")[0] == "allow"
    assert decide(policy, "post", {"to": "all"}, "pkg")[0] == "allow"


def test_a_rate_limit_denies_calls_over_it_within_the_window_per_session() -> None:
    limited = {"id": "few", "priority": 1, "when": {"target": "post"},
               "then": {"decision": "allow", "rate_limit": {"max_calls": 2, "window": "1m"}}}  # fmt: skip
    policy = engine(pkg={"rules": [limited]})
    assert [decide(policy, "post", now=t)[0] for t in (0, 1)] == ["allow", "allow"]
    over = policy.decide("post", {}, None, "s1", 2)
    assert (over.action, over.rule, over.reason) == (
        "deny",
        "pkg:few",
        "rate limit of 2 calls per 60s reached",
    )
    assert decide(policy, "post", session="s2", now=3)[0] == "allow"  # execution = session
    assert decide(policy, "post", now=60.5)[0] == "allow"  # the first call left the window
    assert decide(policy, "post", now=60.6)[0] == "deny"


def test_agent_id_rules_never_match() -> None:
    policy = engine(pkg={"default_action": "allow", "rules": [
        {"id": "ops", "priority": 1, "when": {"agent_id": "ops"}, "then": {"decision": "deny"}}
    ]})  # fmt: skip
    assert decide(policy, "x", provider="pkg") == ("allow", "pkg:default_action")


def test_a_tool_every_call_of_which_is_denied_may_not_be_used() -> None:
    policy = engine(pkg={"rules": [deny("no-rm", 1, target="rm"), allow("rest", 9, target="*")]})
    assert policy.may_allow("rm", None) is False
    assert policy.may_allow("ls", None) is True


def test_a_deny_rule_on_some_arguments_leaves_the_tool_usable() -> None:
    rule = deny("no-prod", 1, target="deploy", arguments={"env": {"equals": "prod"}})
    policy = engine(
        pkg={"default_action": "deny", "rules": [rule, allow("deploy", 5, target="deploy")]}
    )
    assert policy.may_allow("deploy", "pkg") is True


def test_an_allow_rule_on_some_arguments_before_a_blanket_deny_leaves_the_tool_usable() -> None:
    rule = allow("dev-only", 1, target="deploy", arguments={"env": {"equals": "dev"}})
    policy = engine(pkg={"rules": [rule, deny("never", 5, target="deploy")]})
    assert policy.may_allow("deploy", None) is True


def test_the_providers_default_deny_makes_an_unmatched_tool_unusable() -> None:
    policy = engine(pkg={"default_action": "deny", "rules": [allow("one", 1, target="pkg__one")]})
    assert policy.may_allow("pkg__two", "pkg") is False
    assert policy.may_allow("pkg__one", "pkg") is True
    assert policy.may_allow("other", None) is True  # no bundle of its own: allowed


def test_a_tool_that_needs_approval_stays_usable() -> None:
    ask = {"id": "ask", "priority": 1, "when": {"target": "rm"},
           "then": {"decision": "require_approval"}}  # fmt: skip
    assert engine(pkg={"rules": [ask]}).may_allow("rm", None) is True
