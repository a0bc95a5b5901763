"""Policy bundles in rebuno's grammar (rebuno/rebuno ``docs/policy.md``), which Nu's
``policy.yaml`` ("rules suggested at install") is read as; the Nu document gives no grammar
of its own.

A bundle is ``{default_action, rules}``; each rule ``{id, priority, when, then}``. Rules
are tried by ``priority``, lowest first, and the first match decides. ``when`` fields are
ANDed: ``target`` (a glob in Go's ``path.Match`` syntax) or ``targets`` (any of them),
``agent_id`` / ``agent_ids``, ``step_kind``, and ``arguments: {name: {equals | contains |
one_of | regex}}``, values compared as strings. ``then`` has ``decision`` (``allow``,
``deny``, ``require_approval``), ``reason``, ``approval_config {approvers, timeout,
message}`` and ``rate_limit {max_calls, window, per_what, on_limiter_error}``.

``parse_bundle`` returns the bundle and every problem found, each naming the rule and
field; a bundle with problems is never applied.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Final

__all__ = [
    "DECISIONS",
    "ArgumentTest",
    "Bundle",
    "RateLimit",
    "Rule",
    "as_string",
    "parse_bundle",
    "parse_duration",
]

DECISIONS: Final = ("allow", "deny", "require_approval")
STEP_KINDS: Final = ("tool_call", "llm_call", "local")
OPERATORS: Final = ("equals", "contains", "one_of", "regex")
PER_WHAT: Final = ("execution", "agent", "global")
_WHEN: Final = ("target", "targets", "agent_id", "agent_ids", "step_kind", "arguments")
_THEN: Final = ("decision", "reason", "approval_config", "rate_limit")
_RULE: Final = ("id", "priority", "when", "then")
_DURATION = re.compile(r"(\d+(?:\.\d+)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNITS: Final = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True, slots=True)
class ArgumentTest:
    name: str
    equals: str | None = None
    contains: str | None = None
    one_of: tuple[str, ...] | None = None
    regex: re.Pattern[str] | None = None


@dataclass(frozen=True, slots=True)
class RateLimit:
    max_calls: int
    window: float
    """Seconds."""
    per_what: str = "execution"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    priority: int
    decision: str
    reason: str = ""
    targets: tuple[re.Pattern[str], ...] = ()
    """Empty: every target."""
    agent_ids: tuple[str, ...] = ()
    step_kind: str | None = None
    arguments: tuple[ArgumentTest, ...] = ()
    approval_message: str = ""
    approval_timeout: float | None = None
    approvers: tuple[str, ...] = ()
    rate_limit: RateLimit | None = None


@dataclass(frozen=True, slots=True)
class Bundle:
    default_action: str = "deny"
    rules: tuple[Rule, ...] = ()
    notes: tuple[str, ...] = field(default=())
    """What the gateway applies differently from rebuno (e.g. agent ids never match)."""


def parse_duration(text: object) -> float | None:
    """A Go duration (``30s``, ``1h30m``, ``500ms``) in seconds; None when it is not one."""
    if not isinstance(text, str) or not text:
        return None
    position, total = 0, 0.0
    for match in _DURATION.finditer(text):
        if match.start() != position:
            return None
        total += float(match[1]) * _UNITS[match[2]]
        position = match.end()
    return total if position == len(text) else None


def _glob(pattern: str) -> re.Pattern[str]:
    """Go's ``path.Match``: ``*`` is any run of non-``/`` characters, ``?`` one, ``[...]``
    a class (``^`` negates), ``\\`` escapes. Raises ValueError for a malformed pattern."""
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "\\":
            index += 1
            if index == len(pattern):
                raise ValueError("ends with an escape")
            out.append(re.escape(pattern[index]))
        elif char == "[":
            end = pattern.find(
                "]", index + 2 if pattern[index + 1 : index + 2] == "^" else index + 1
            )
            if end < 0:
                raise ValueError("has an unclosed [")
            body = pattern[index + 1 : end]
            negate = body.startswith("^")
            body = body[1:] if negate else body
            if not body:
                raise ValueError("has an empty [] class")
            out.append(f"[{'^' if negate else ''}{_class(body)}]")
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z")


def _class(body: str) -> str:
    chars, index = [], 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body):
            index += 1
            chars.append(re.escape(body[index]))
        else:
            chars.append("-" if char == "-" else re.escape(char))
        index += 1
    return "".join(chars)


class _Reader:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def problem(self, where: str, text: str) -> None:
        self.problems.append(f"{where}: {text}")

    def string(self, data: dict[str, Any], key: str, where: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            self.problem(where, f"{key} must be a non-empty string")
            return None
        return value

    def strings(self, data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = data.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.problem(where, f"{key} must be a list of non-empty strings")
            return ()
        return tuple(value)

    def unknown(self, data: dict[str, Any], known: tuple[str, ...], where: str) -> None:
        for key in data:
            if key not in known:
                self.problem(where, f"unknown field {key}")


def parse_bundle(data: object) -> tuple[Bundle | None, list[str]]:
    """The bundle, or None and why not (every problem, each naming its rule and field)."""
    read = _Reader()
    if not isinstance(data, dict):
        return None, ["the policy is not a mapping"]
    read.unknown(data, ("default_action", "rules"), "policy")
    default = data.get("default_action", "deny")
    if default not in ("allow", "deny"):
        read.problem("policy", "default_action must be allow or deny")
    raw_rules = data.get("rules", [])
    if not isinstance(raw_rules, list):
        read.problem("policy", "rules must be a list")
        raw_rules = []
    rules: list[Rule] = []
    notes: list[str] = []
    ids: set[str] = set()
    priorities: set[int] = set()
    for index, raw in enumerate(raw_rules):
        rule = _rule(read, raw, index, notes)
        if rule is None:
            continue
        if rule.id in ids:
            read.problem(f"rule {rule.id}", "id is not unique")
        if rule.priority in priorities:
            read.problem(f"rule {rule.id}", f"priority {rule.priority} is not unique")
        ids.add(rule.id)
        priorities.add(rule.priority)
        rules.append(rule)
    if read.problems:
        return None, read.problems
    ordered = tuple(sorted(rules, key=lambda r: r.priority))
    return Bundle(str(default), ordered, tuple(notes)), []


def _rule(read: _Reader, raw: object, index: int, notes: list[str]) -> Rule | None:
    where = f"rules[{index}]"
    if not isinstance(raw, dict):
        read.problem(where, "must be a mapping")
        return None
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not rule_id:
        read.problem(where, "needs an id (a non-empty string)")
        return None
    where = f"rule {rule_id}"
    read.unknown(raw, _RULE, where)
    priority = raw.get("priority")
    if not isinstance(priority, int) or isinstance(priority, bool):
        read.problem(where, "needs an integer priority")
        priority = 0
    when = raw.get("when") or {}
    then = raw.get("then")
    if not isinstance(when, dict):
        read.problem(where, "when must be a mapping")
        when = {}
    if not isinstance(then, dict):
        read.problem(where, "needs then: {decision: ...}")
        return None
    read.unknown(when, _WHEN, f"{where} when")
    read.unknown(then, _THEN, f"{where} then")
    targets = [*filter(None, [read.string(when, "target", where)]),
               *read.strings(when, "targets", where)]  # fmt: skip
    patterns = []
    for target in targets:
        try:
            patterns.append(_glob(target))
        except ValueError as error:
            read.problem(where, f"target {target!r} {error}")
    agents = (*filter(None, [read.string(when, "agent_id", where)]),
              *read.strings(when, "agent_ids", where))  # fmt: skip
    if agents:
        notes.append(f"rule {rule_id} names agent ids; the gateway's agent has none, so it "
                     "never matches")  # fmt: skip
    step_kind = when.get("step_kind")
    if step_kind is not None and step_kind not in STEP_KINDS:
        read.problem(where, f"step_kind must be one of {', '.join(STEP_KINDS)}")
    elif step_kind not in (None, "tool_call"):
        notes.append(f"rule {rule_id} is for {step_kind} steps; the gateway gates tool calls "
                     "only, so it never matches")  # fmt: skip
    decision = then.get("decision")
    if decision not in DECISIONS:
        read.problem(where, f"then.decision must be one of {', '.join(DECISIONS)}")
        decision = "deny"
    reason = then.get("reason", "")
    if not isinstance(reason, str):
        read.problem(where, "then.reason must be a string")
        reason = ""
    approval = _approval(read, then.get("approval_config"), where)
    return Rule(
        id=rule_id,
        priority=priority,
        decision=str(decision),
        reason=reason,
        targets=tuple(patterns),
        agent_ids=agents,
        step_kind=step_kind if isinstance(step_kind, str) else None,
        arguments=_arguments(read, when.get("arguments"), where),
        approval_message=approval[0],
        approval_timeout=approval[1],
        approvers=approval[2],
        rate_limit=_rate_limit(read, then.get("rate_limit"), where),
    )


def _arguments(read: _Reader, raw: object, where: str) -> tuple[ArgumentTest, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        read.problem(where, "when.arguments must be a mapping of argument names")
        return ()
    tests = []
    for name, predicate in raw.items():
        at = f"{where} when.arguments.{name}"
        if not isinstance(predicate, dict) or not predicate:
            read.problem(at, f"is an empty predicate; use one of {', '.join(OPERATORS)}")
            continue
        read.unknown(predicate, OPERATORS, at)
        one_of = predicate.get("one_of")
        if one_of is not None and not isinstance(one_of, list):
            read.problem(at, "one_of must be a list")
            one_of = None
        pattern = None
        if "regex" in predicate:
            try:
                pattern = re.compile(str(predicate["regex"]))
            except re.error as error:
                read.problem(at, f"regex does not compile: {error}")
        tests.append(
            ArgumentTest(
                name=str(name),
                equals=as_string(predicate["equals"]) if "equals" in predicate else None,
                contains=as_string(predicate["contains"]) if "contains" in predicate else None,
                one_of=tuple(as_string(v) for v in one_of) if one_of is not None else None,
                regex=pattern,
            )
        )
    return tuple(tests)


def _approval(read: _Reader, raw: object, where: str) -> tuple[str, float | None, tuple[str, ...]]:
    if raw is None:
        return "", None, ()
    if not isinstance(raw, dict):
        read.problem(where, "then.approval_config must be a mapping")
        return "", None, ()
    read.unknown(raw, ("approvers", "timeout", "message"), f"{where} approval_config")
    timeout = None
    if "timeout" in raw:
        timeout = parse_duration(raw["timeout"])
        if timeout is None:
            read.problem(where, "approval_config.timeout must be a Go duration such as 30s")
    message = read.string(raw, "message", where) or ""
    return message, timeout, read.strings(raw, "approvers", where)


def _rate_limit(read: _Reader, raw: object, where: str) -> RateLimit | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        read.problem(where, "then.rate_limit must be a mapping")
        return None
    read.unknown(raw, ("max_calls", "window", "per_what", "on_limiter_error"),
                 f"{where} rate_limit")  # fmt: skip
    calls = raw.get("max_calls")
    window = parse_duration(raw.get("window"))
    per = raw.get("per_what", "execution")
    if not isinstance(calls, int) or isinstance(calls, bool) or calls < 1:
        read.problem(where, "rate_limit.max_calls must be a positive integer")
    if window is None or window <= 0:
        read.problem(where, "rate_limit.window must be a Go duration such as 1m")
    if per not in PER_WHAT:
        read.problem(where, f"rate_limit.per_what must be one of {', '.join(PER_WHAT)}")
    if raw.get("on_limiter_error", "deny") not in ("allow", "deny"):
        read.problem(where, "rate_limit.on_limiter_error must be allow or deny")
    if not isinstance(calls, int) or window is None or per not in PER_WHAT:
        return None
    return RateLimit(calls, window, str(per))


def as_string(value: object) -> str:
    """rebuno compares argument values as strings: text as it is, anything else as its
    JSON (``true``, ``5``, ``["a"]``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
