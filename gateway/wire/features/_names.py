"""The names of the negotiated protocol additions, what each kind of process is offered,
and the ``initialize.gateway`` announcement: nothing imported (the runtimes read them at
start)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ALL_FEATURES",
    "EVENTS_EXTENDED",
    "EXTENSION_FEATURES",
    "HOST_ACTIONS",
    "HOST_REQUEST",
    "PROTOCOL_ADDITIONS_VERSION",
    "REGISTER_DIAGNOSTICS",
    "REGISTER_FLAGS",
    "REGISTER_HOOK_TOOLS",
    "REGISTER_OWNERS",
    "REGISTRATION_UPDATE",
    "RUNTIME_FEATURES",
    "TOOL_OUTPUT",
    "TOOL_PARTS",
    "TOOL_PROGRESS",
    "TRACE_CONTEXT",
    "UPDATE_DIAGNOSTICS",
    "announcement",
]

PROTOCOL_ADDITIONS_VERSION = 1

REGISTER_DIAGNOSTICS = "register.diagnostics"
"""``register.gateway.diagnostics``: problems a runtime found while loading a package."""
TOOL_PARTS = "tool.parts"
"""Tool ``response.gateway.parts`` / ``details``: structured results."""
TOOL_PROGRESS = "tool.progress"
"""``update.gateway.progress``: partial results of an in-flight tool call (current nimlet's
``tool_update`` is the plain equivalent, text only)."""
REGISTRATION_UPDATE = "registration.update"
"""``update.gateway.registration``: the runtime's complete current tool list."""
HOST_ACTIONS = "host.actions"
"""Command ``response.gateway.actions``: session actions for the embedding agent."""
HOST_REQUEST = "host.request"
"""The negotiated ``host_request`` methods (inputs in ``params``) that current nimlet's
``host_request`` has no equivalent for: ``session.entries``, ``exec``; plus the older shapes
of ``ui.input`` / ``ui.editor``. Upstream's methods need no negotiation."""
EVENTS_EXTENDED = "events.extended"
"""Events beyond nimlet's eight (``input``, ``before_agent_start``, ``context``)."""
REGISTER_OWNERS = "register.owners"
"""``register.gateway.owners`` (and ``registration.owners`` in updates): which package of a
process hosting several registered each tool and command and subscribes to each event; the
host keeps each package's registrations under its own owner and addresses an event to one
package with ``event.gateway.package``."""
UPDATE_DIAGNOSTICS = "update.diagnostics"
"""``update.gateway.diagnostics``: problems a runtime found while running (a handler that
threw), with catalogued codes, as ``register.diagnostics`` reports those found loading."""

TOOL_OUTPUT = "tool.output"
"""A tool spec's ``gateway.output_schema`` (the JSON Schema, an object schema, of the tool's
structured result) and a tool ``response.gateway.structured`` (that result): MCP's
``outputSchema`` / ``structuredContent``, Pi's tool ``outputSchema`` / ``structuredContent``."""

REGISTER_FLAGS = "register.flags"
"""``register.gateway.flags``: the command-line flags a runtime's packages registered (Pi's
``registerFlag``), each ``{name, description, type, default, package?}``; listed by
``gateway list``, never parsed from a command line."""
REGISTER_HOOK_TOOLS = "register.hook_tools"
"""``register.gateway.hook_tools: {event: [tool name, …]}``: for ``tool_call`` and
``tool_result``, the only tools the process's hooks of that event can apply to (their
matchers are lists of exact names); an event it does not name applies to every tool. The host
asks those hooks only about those tools, so a dormant process whose hooks cannot apply to a
call is not started for it."""

TRACE_CONTEXT = "trace.context"
"""The host's ``tool``, ``command`` and ``event`` requests carry ``gateway: {traceparent,
tracestate?}`` (W3C Trace Context) when the gateway traces: the span of that request, for
what the runtime does or starts on its behalf to continue the trace (MCP's SEP-414 carries
the same two keys in ``_meta``)."""
ALL_FEATURES: tuple[str, ...] = (
    REGISTER_DIAGNOSTICS,
    TOOL_PARTS,
    TOOL_PROGRESS,
    REGISTRATION_UPDATE,
    HOST_ACTIONS,
    HOST_REQUEST,
    EVENTS_EXTENDED,
    REGISTER_OWNERS,
    UPDATE_DIAGNOSTICS,
    REGISTER_FLAGS,
    TOOL_OUTPUT,
    REGISTER_HOOK_TOOLS,
    TRACE_CONTEXT,
)

EXTENSION_FEATURES: frozenset[str] = frozenset({REGISTER_DIAGNOSTICS})
"""Offered to extensions found through ``extension.json``: they never see a new field."""
RUNTIME_FEATURES: frozenset[str] = frozenset(ALL_FEATURES)
"""Offered to the runtimes the gateway plans for packages (the sidecars)."""


def announcement(features: frozenset[str]) -> dict[str, Any]:
    """The ``initialize.gateway`` value announcing ``features`` (in catalogue order)."""
    return {
        "version": PROTOCOL_ADDITIONS_VERSION,
        "features": [name for name in ALL_FEATURES if name in features],
    }
