"""``user_message`` side effects (current nimlet): text an extension delivers into the
conversation, queued by how it should arrive. The gateway runs no model, so the embedding
agent takes the queues at the points nimlet delivers them: steering before each model
request of a turn (after the current tool batch), follow-ups after the final answer (the
same run goes on). ``now`` is typed input while no turn runs (handed to
``AgentLink.submit_input``), a follow-up while one does."""

from __future__ import annotations

from collections import deque
from typing import Any, Literal

from gateway.base import Diagnostics
from gateway.host import _codes
from gateway.model import AgentLink, UserMessage

__all__ = ["DELIVERY_MODES", "Deliveries", "QueueMode"]

DELIVERY_MODES = ("now", "steer", "follow_up")
QueueMode = Literal["one-at-a-time", "all"]


class Deliveries:
    def __init__(self, diagnostics: Diagnostics) -> None:
        self._diagnostics = diagnostics
        self._steering: deque[UserMessage] = deque()
        self._follow_ups: deque[UserMessage] = deque()

    def receive(self, extension: str, value: Any, *, turn_open: bool, link: AgentLink) -> None:
        """One ``user_message`` field; both keys are required (upstream drops anything else,
        the gateway says so)."""
        content = value.get("content") if isinstance(value, dict) else None
        deliver_as = value.get("deliver_as") if isinstance(value, dict) else None
        if not isinstance(content, str) or not content or deliver_as not in DELIVERY_MODES:
            self._diagnostics.add(
                _codes.USER_MESSAGE_DROPPED(
                    f"{extension}: user_message needs a non-empty content and deliver_as "
                    f"now, steer or follow_up; dropped: {value!r:.120}",
                    package=extension,
                )
            )
            return
        message = UserMessage(content, str(deliver_as), extension)
        if message.deliver_as == "steer":
            self._steering.append(message)
        elif message.deliver_as == "follow_up" or turn_open or link.submit_input is None:
            self._follow_ups.append(message)
        else:
            link.submit_input(message)

    def take_steering(self, mode: QueueMode = "one-at-a-time") -> list[UserMessage]:
        return _take(self._steering, mode)

    def take_follow_ups(self, mode: QueueMode = "one-at-a-time") -> list[UserMessage]:
        return _take(self._follow_ups, mode)

    def pending(self) -> list[UserMessage]:
        """Everything not yet delivered (steering first), left in place."""
        return [*self._steering, *self._follow_ups]

    def clear(self) -> list[UserMessage]:
        dropped = self.pending()
        self._steering.clear()
        self._follow_ups.clear()
        return dropped


def _take(queue: deque[UserMessage], mode: QueueMode) -> list[UserMessage]:
    if mode == "all":
        taken = list(queue)
        queue.clear()
        return taken
    return [queue.popleft()] if queue else []
