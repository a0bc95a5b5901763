"""Package sources used by several test modules."""

from __future__ import annotations

from tests.adapters._helpers import NANOBOT_DOCUMENT_EXAMPLE

# The authoring document's example, verbatim apart from the print (stdout must not break
# the protocol) and the permission use.
REVIEW = """
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
            "properties": {
                "path": {"type": "string"},
            },
            "required": ["path"],
        }

    async def execute(self, path: str) -> str:
        print("reviewing", path)
        return f"Review requested for {path}"


async def review(ctx):
    return f"Starting a review of {ctx.args or 'the working tree'}"


def register(api) -> None:
    api.register_tool(ReviewTool())
    api.register_command("review", review, prefix=True)
"""

REVIEW_MANIFEST = NANOBOT_DOCUMENT_EXAMPLE

# Tools with every kind of result, written as plain objects (duck typing works too).
KITCHEN = """
import sys

from nanobot.agent.tools.base import Tool, ToolResult


class Simple:
    def __init__(self, name, run, schema=None):
        self.name = name
        self.description = f"tool {name}"
        self.parameters = schema or {"type": "object", "properties": {}}
        self._run = run

    async def execute(self, **kwargs):
        return await self._run(**kwargs)


async def echo(text=""):
    return text


async def data():
    return {"answer": 42, "items": [1, "two"]}


async def nothing():
    return None


async def fails():
    raise ValueError("bad input")


async def exits():
    sys.exit(3)


async def flagged():
    return ToolResult.error("flagged failure")


async def reads_input():
    try:
        line = input()
    except EOFError:
        line = "<eof>"
    return "read " + line


class Typed(Tool):
    name = "typed"
    description = "nanobot's casting and validation"
    parameters = {
        "type": "object",
        "properties": {"count": {"type": "integer", "minimum": 1}, "flag": {"type": "boolean"}},
        "required": ["count"],
    }

    async def execute(self, count, flag=False):
        return f"{count!r} {flag!r}"


def register(api):
    for name, run in [("echo", echo), ("data", data), ("nothing", nothing), ("fails", fails),
                      ("exits", exits), ("flagged", flagged), ("reads_input", reads_input)]:
        api.register_tool(Simple(name, run))
    api.register_tool(Typed())
"""
KITCHEN_TOOLS = ["echo", "data", "nothing", "fails", "exits", "flagged", "reads_input", "typed"]
