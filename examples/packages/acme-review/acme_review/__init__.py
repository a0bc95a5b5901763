"""A nanobot extension: a tool, and a hook that acts on another ecosystem's tool.

``ticket_stamp`` rewrites the result of ``open_ticket`` (a Pi tool, run in the Node
sidecar) after it ran: nanobot's ``after_execute_tool`` sees every tool call of the turn.
"""

from nanobot.agent.hook import AgentHook
from nanobot.agent.tools.base import Tool


class ReviewTool(Tool):
    @property
    def name(self) -> str:
        return "review_code"

    @property
    def description(self) -> str:
        return "Review a local code change."

    @property
    def parameters(self) -> dict:
        return {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        }

    async def execute(self, path: str) -> str:
        return f"Review requested for {path}"


class TicketStamp(AgentHook):
    async def after_execute_tool(self, ctx, tool_call, tool, params, result):
        if tool_call.name == "open_ticket":
            return f"{result} (reviewer: acme.review)"
        return None


def ticket_stamp(turn_context):
    return TicketStamp()


def register(api) -> None:
    api.register_tool(ReviewTool())
    api.register_hook_factory(ticket_stamp)
