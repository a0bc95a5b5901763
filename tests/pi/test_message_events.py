"""Pi's message_start / message_end on the canonical message events (negotiated
``events.extended``): the user message at ``message_received``, the assistant reply at
``message_sending``, where message_end may replace it."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import open_gateway

from .conftest import FIXTURES, install_ready

pytestmark = pytest.mark.anyio


async def test_message_start_and_end_run_for_user_and_assistant_messages(workspace: Any) -> None:
    install_ready(workspace.config.home, FIXTURES / "message-events")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        for event in ("message_received", "message_sending"):
            assert [h.owner for h in gateway.registry.hooks(event)] == ["pi-message-events"]
        await gateway.emit("message_received", {"text": "hi there", "source": "interactive"})
        sent = await gateway.emit("message_sending", {"text": "the password is 42"})
        assert sent.allowed and sent.payload["text"] == "the ******** is 42"
        seen = (await gateway.run_command("messages-seen")).message
        assert seen == (
            "start:user:hi there | end:user:hi there | "
            "start:assistant:the password is 42 | end:assistant:the password is 42"
        )
        assert "pi.event_unmapped" not in [d.code for d in gateway.diagnostics]
