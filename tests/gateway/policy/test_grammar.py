"""Policy bundles in rebuno's grammar: what loads, and every problem named by rule and field."""

from __future__ import annotations

import pytest

from gateway.policy import parse_bundle, parse_duration


def rule(rule_id: str = "r", priority: int = 1, **fields: object) -> dict[str, object]:
    return {"id": rule_id, "priority": priority, "then": {"decision": "allow"}, **fields}


def problems(data: object) -> list[str]:
    bundle, found = parse_bundle(data)
    assert (bundle is None) == bool(found)
    return found


def test_rules_are_ordered_by_priority_lowest_first() -> None:
    bundle, found = parse_bundle({"rules": [rule("late", 20), rule("early", 5)]})
    assert found == [] and bundle is not None
    assert [r.id for r in bundle.rules] == ["early", "late"]


def test_default_action_is_deny_unless_said() -> None:
    assert parse_bundle({"rules": []})[0].default_action == "deny"  # type: ignore[union-attr]
    assert parse_bundle({"default_action": "allow"})[0].default_action == "allow"  # type: ignore[union-attr]


def test_ids_and_priorities_must_be_unique() -> None:
    assert problems({"rules": [rule("a", 1), rule("a", 1)]}) == [
        "rule a: id is not unique",
        "rule a: priority 1 is not unique",
    ]


def test_every_rule_needs_an_id_a_priority_and_a_decision() -> None:
    assert problems({"rules": [{"priority": 1}, {"id": "x", "then": {}}]}) == [
        "rules[0]: needs an id (a non-empty string)",
        "rule x: needs an integer priority",
        "rule x: then.decision must be one of allow, deny, require_approval",
    ]


def test_an_empty_argument_predicate_is_rejected() -> None:
    assert problems({"rules": [rule(when={"arguments": {"path": {}}})]}) == [
        "rule r when.arguments.path: is an empty predicate; use one of equals, contains, one_of, regex"
    ]


def test_a_regex_that_does_not_compile_is_named() -> None:
    (found,) = problems({"rules": [rule(when={"arguments": {"q": {"regex": "("}}})]})
    assert found.startswith("rule r when.arguments.q: regex does not compile")


def test_unknown_fields_are_named_at_every_level() -> None:
    data = {"extra": 1, "rules": [{**rule(when={"tool": "x"}), "note": "n"}]}
    assert problems(data) == [
        "policy: unknown field extra",
        "rule r: unknown field note",
        "rule r when: unknown field tool",
    ]


def test_a_glob_target_follows_go_path_match() -> None:
    bundle, _ = parse_bundle({"rules": [rule(when={"target": "fs_*"})]})
    assert bundle is not None
    (pattern,) = bundle.rules[0].targets
    assert pattern.match("fs_read") and not pattern.match("fs/read") and not pattern.match("xfs_a")
    assert problems({"rules": [rule(when={"target": "a["})]}) == [
        "rule r: target 'a[' has an unclosed ["
    ]


def test_rate_limit_and_approval_durations_are_go_durations() -> None:
    bundle, found = parse_bundle({"rules": [rule(then={
        "decision": "require_approval",
        "approval_config": {"timeout": "1m30s", "message": "ok?"},
        "rate_limit": {"max_calls": 3, "window": "1h"},
    })]})  # fmt: skip
    assert found == [] and bundle is not None
    (only,) = bundle.rules
    assert (only.approval_timeout, only.rate_limit.window, only.rate_limit.max_calls) == (
        90.0,
        3600.0,
        3,
    )  # type: ignore[union-attr]
    assert problems(
        {
            "rules": [
                rule(then={"decision": "allow", "rate_limit": {"max_calls": 0, "window": "soon"}})
            ]
        }
    ) == [
        "rule r: rate_limit.max_calls must be a positive integer",
        "rule r: rate_limit.window must be a Go duration such as 1m",
    ]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30.0), ("1h30m", 5400.0), ("500ms", 0.5), ("2h", 7200.0), ("1.5s", 1.5), ("", None),
     ("5", None), ("1d", None), ("m", None)],
)  # fmt: skip
def test_go_durations(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


def test_agent_ids_and_other_step_kinds_load_with_a_note() -> None:
    bundle, found = parse_bundle({"rules": [
        rule("agents", 1, when={"agent_id": "ops"}), rule("llm", 2, when={"step_kind": "llm_call"})
    ]})  # fmt: skip
    assert found == [] and bundle is not None
    assert bundle.notes == (
        "rule agents names agent ids; the gateway's agent has none, so it never matches",
        "rule llm is for llm_call steps; the gateway gates tool calls only, so it never matches",
    )


def test_a_bundle_that_is_not_a_mapping_is_refused() -> None:
    assert problems(["rules"]) == ["the policy is not a mapping"]
