"""Observing events reach their subscribers at once, folded in subscriber order; chained
events stay one subscriber after another (``gateway.model.events.dispatch``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from gateway.base import Diagnostics
from gateway.model import HOOK_FAILED, EventSpec, HookEntry, dispatch
from gateway.wire import ExtensionError

pytestmark = pytest.mark.anyio

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]

OBSERVING = EventSpec(
    "observed",
    "an event no reply of which changes what another subscriber is sent",
    gate=True,
    replace=("choice",),
    collect=("notes",),
)
IN_TURN = EventSpec(
    "observed",
    "the same rule, but a reply could stop it: asked in turn",
    gate=True,
    replace=("choice",),
    collect=("notes",),
    stop_when=("stop", "now"),
)
CHAINED = EventSpec("chained", "each subscriber sees the previous one's text", chain=("text",))
HOLD = 10.0
"""Seconds a test waits for what would never come if the subscribers were asked in turn
(a failure, not a measure: the test fails instead of hanging)."""


def hooks(*handlers: Handler) -> list[HookEntry]:
    return [HookEntry("e", f"p{index}", handler) for index, handler in enumerate(handlers)]


def replying(reply: Any) -> Handler:
    async def handler(event: str, payload: dict[str, Any]) -> Any:
        return reply

    return handler


def failing(message: str) -> Handler:
    async def handler(event: str, payload: dict[str, Any]) -> Any:
        raise ExtensionError(message)

    return handler


REPLIES: list[Any] = [
    {"allow": False, "reason": "first", "notes": ["a", "b"], "choice": 1},
    {"notes": "c", "choice": 2},
    ExtensionError("second one broke"),
    {"allow": False, "notes": ["d"]},
    ExtensionError("third one broke"),
]


def scripted(reply: Any) -> Handler:
    return failing(str(reply)) if isinstance(reply, ExtensionError) else replying(reply)


def reversed_arrival(replies: list[Any]) -> list[Handler]:
    """Handlers that answer only once all have been asked, the last one first: asked in
    turn, the first would wait for ever (cut short by ``HOLD``)."""
    count = len(replies)
    asked = anyio.Event()
    started = 0
    answered = [anyio.Event() for _ in replies]

    def handler(index: int) -> Handler:
        async def answer(event: str, payload: dict[str, Any]) -> Any:
            nonlocal started
            started += 1
            if started == count:
                asked.set()
            try:
                with anyio.fail_after(HOLD):
                    await asked.wait()
                    if index + 1 < count:
                        await answered[index + 1].wait()
                return await scripted(replies[index])(event, payload)
            finally:
                answered[index].set()

        return answer

    return [handler(index) for index in range(count)]


def summary(outcome: Any, diagnostics: Diagnostics) -> tuple[Any, ...]:
    return (
        outcome.allowed, outcome.reasons, outcome.replaced, outcome.collected, outcome.asked,
        outcome.failed, outcome.payload, [(d.code, d.message, d.package) for d in diagnostics],
    )  # fmt: skip


async def test_an_observing_event_answered_in_reverse_folds_as_asked_in_turn():
    one_by_one = Diagnostics()
    expected = await dispatch(
        IN_TURN, {"x": 1}, hooks(*(scripted(reply) for reply in REPLIES)), one_by_one
    )
    at_once = Diagnostics()
    outcome = await dispatch(OBSERVING, {"x": 1}, hooks(*reversed_arrival(REPLIES)), at_once)
    assert summary(outcome, at_once) == summary(expected, one_by_one)
    assert outcome.reasons == ["first", "blocked by extension"]
    assert outcome.collected == {"notes": ["a", "b", "c", "d"]}
    assert outcome.replaced == {"choice": 2}
    assert (outcome.asked, outcome.failed) == (5, 2)
    assert [d.package for d in at_once] == ["p2", "p4"]
    assert all(d.code == HOOK_FAILED.code for d in at_once)


async def test_a_chained_event_asks_one_subscriber_after_another():
    running, most, seen = 0, 0, []

    def rewriting(suffix: str) -> Handler:
        async def handler(event: str, payload: dict[str, Any]) -> Any:
            nonlocal running, most
            running += 1
            most = max(most, running)
            seen.append(payload["text"])
            for _ in range(5):
                await anyio.lowlevel.checkpoint()
            running -= 1
            return {"text": payload["text"] + suffix}

        return handler

    outcome = await dispatch(
        CHAINED, {"text": "t"}, hooks(rewriting("1"), rewriting("2"), rewriting("3")), Diagnostics()
    )
    assert most == 1
    assert seen == ["t", "t1", "t12"]
    assert outcome.payload["text"] == "t123"


async def test_an_observing_event_asks_every_subscriber_before_any_answers():
    asked: list[str] = []
    everyone = anyio.Event()

    def waiting(name: str) -> Handler:
        async def handler(event: str, payload: dict[str, Any]) -> Any:
            asked.append(name)
            if len(asked) == 3:
                everyone.set()
            with anyio.fail_after(HOLD):
                await everyone.wait()
            return {"notes": name}

        return handler

    outcome = await dispatch(
        OBSERVING, {}, hooks(waiting("a"), waiting("b"), waiting("c")), Diagnostics()
    )
    assert outcome.collected == {"notes": ["a", "b", "c"]}


async def test_a_failing_subscriber_does_not_stop_the_others_being_asked():
    answered: list[str] = []

    def slow(name: str) -> Handler:
        async def handler(event: str, payload: dict[str, Any]) -> Any:
            for _ in range(5):
                await anyio.lowlevel.checkpoint()
            answered.append(name)
            return {"notes": name}

        return handler

    diagnostics = Diagnostics()
    outcome = await dispatch(
        OBSERVING, {}, hooks(slow("a"), failing("gone"), slow("c")), diagnostics
    )
    assert sorted(answered) == ["a", "c"]
    assert outcome.collected == {"notes": ["a", "c"]}
    assert (outcome.asked, outcome.failed) == (3, 1)
    assert [d.message for d in diagnostics] == ["p1: observed hook failed: gone"]


async def test_a_subscriber_that_raises_a_bug_raises_it_as_asked_in_turn_without_cancelling_the_others():
    answered: list[str] = []

    async def broken(event: str, payload: dict[str, Any]) -> Any:
        raise KeyError("bug")

    async def later(event: str, payload: dict[str, Any]) -> Any:
        for _ in range(5):
            await anyio.lowlevel.checkpoint()
        answered.append("later")
        return {}

    with pytest.raises(KeyError):
        await dispatch(OBSERVING, {}, hooks(broken, later), Diagnostics())
    assert answered == ["later"]


async def test_each_subscriber_of_an_observing_event_gets_its_own_payload():
    async def meddling(event: str, payload: dict[str, Any]) -> Any:
        payload["text"] = "changed"
        return {}

    seen: list[str] = []

    async def reading(event: str, payload: dict[str, Any]) -> Any:
        await anyio.lowlevel.checkpoint()
        seen.append(payload["text"])
        return {}

    outcome = await dispatch(OBSERVING, {"text": "t"}, hooks(meddling, reading), Diagnostics())
    assert seen == ["t"]
    assert outcome.payload == {"text": "t"}
