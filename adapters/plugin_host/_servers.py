"""One stdio MCP server: started with the official SDK's client as a child of this
process, initialised, listed (tools, prompts, resources, every page), then held open until
the host stops. Each server lives in a task of its own, because the SDK's transport must be
entered and left in the same task; a server that fails, at start or later, fails alone."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client

from adapters.plugin_host._channel import log
from adapters.plugin_host._config import ServerSpec
from adapters.plugin_host._naming import Namer

__all__ = ["McpServer", "describe_error"]


def describe_error(error: BaseException) -> str:
    """The innermost message of an error or an exception group, one line."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


async def _pages(list_page: Callable[..., Awaitable[Any]], attribute: str) -> list[Any]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(1000):  # a server that pages forever is cut off
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await list_page(params=params)
        items += getattr(result, attribute)
        cursor = result.next_cursor
        if not cursor:
            break
    return items


class McpServer:
    """A server's state: ``ready`` is set once it is listed or has failed (``failure``)."""

    def __init__(self, spec: ServerSpec, names: Namer) -> None:
        self.spec = spec
        self.names = names
        """The gateway name of one of its items (``_naming``)."""
        self.session: ClientSession | None = None
        self.ready = anyio.Event()
        self.finished = anyio.Event()
        self.failure: str | None = None
        self.exited: str | None = None
        self.exit_reported = False
        self.tools: list[types.Tool] = []
        self.prompts: list[types.Prompt] = []
        self.resources: list[types.Resource] = []
        self.templates = 0

    def parameters(self) -> StdioServerParameters:
        # The host's own environment is already the gateway's allow-listed one; the
        # server's declared variables and PLUGIN_ROOT / PLUGIN_DATA go on top.
        env = {**os.environ, **self.spec.env}
        return StdioServerParameters(
            command=self.spec.command, args=self.spec.args, env=env, cwd=self.spec.cwd
        )

    async def run(self, stop: anyio.Event, start_timeout: float) -> None:
        try:
            async with (
                stdio_client(self.parameters(), errlog=sys.stderr) as (read, write),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(start_timeout):
                    await self._list(session)
                self.session = session
                self.ready.set()
                log(f"{self.spec.name}: {len(self.tools)} tools, {len(self.prompts)} prompts")
                await stop.wait()
        except anyio.get_cancelled_exc_class():
            raise
        except TimeoutError:
            self._failed(f"no MCP handshake within {start_timeout:g} s")
        except BaseException as error:
            self._failed(describe_error(error))
        finally:
            self.session = None
            self.ready.set()
            self.finished.set()

    def mark_exited(self, problem: str) -> bool:
        """A call found the server gone; True the first time (to report it once)."""
        if self.exited is None:
            self.exited = problem
        self.session = None
        if self.exit_reported:
            return False
        self.exit_reported = True
        return True

    def _failed(self, problem: str) -> None:
        if self.ready.is_set():
            self.exited = problem
            log(f"{self.spec.name}: exited: {problem}")
        else:
            self.failure = problem
            log(f"{self.spec.name}: failed to start: {problem}")

    async def _list(self, session: ClientSession) -> None:
        initialized = await session.initialize()
        capabilities = initialized.capabilities
        if capabilities.tools is not None:
            self.tools = await _pages(session.list_tools, "tools")
        if capabilities.prompts is not None:
            self.prompts = await _pages(session.list_prompts, "prompts")
        if capabilities.resources is not None:
            self.resources = await _pages(session.list_resources, "resources")
            try:
                self.templates = len(
                    await _pages(session.list_resource_templates, "resource_templates")
                )
            except Exception:
                self.templates = 0
