"""``prompts/get``: a command run (its session action or reload carried out by the server)
or a prompt template expanded, as an MCP prompt."""

from __future__ import annotations

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError

from gateway.host import Gateway
from gateway.model import SessionActionError, UnknownCommand
from gateway.serve._mcp_content import (
    ARGUMENTS,
    expand_template,
    prompt_messages,
    served_templates,
)
from gateway.serve._report import answering

__all__ = ["prompt_result"]


async def prompt_result(
    gateway: Gateway, params: types.GetPromptRequestParams
) -> types.GetPromptResult:
    arguments = (params.arguments or {}).get(ARGUMENTS, "")
    try:
        with answering():  # what the command causes is said at once, even during the start
            outcome = await gateway.run_command(params.name, arguments)
    except UnknownCommand:
        template = next((t for t in served_templates(gateway) if t.name == params.name), None)
        if template is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}") from None
        try:
            return await anyio.to_thread.run_sync(expand_template, template, arguments)
        except (OSError, UnicodeDecodeError) as error:
            raise MCPError(types.INTERNAL_ERROR, f"cannot read {template.path}: {error}") from None
    note = ""
    if outcome.error is None and outcome.session is not None:
        # The server's own session is the one its extensions see.
        try:
            await gateway.apply_session_action(outcome.session)
            note = f"(session action {outcome.session.action} carried out by the server)"
        except SessionActionError as error:
            note = f"Extension command failed: {error}"
    elif outcome.error is None and outcome.reload:
        await gateway.reload()
        note = "(the server's extensions were reloaded)"
    return prompt_messages(params.name, outcome, note)
