"""A nanobot-compatible module tree for packages written against ``nanobot-ai``.

Packages ``from nanobot.agent.tools.base import Tool`` (and sometimes the hook and message
types). When the real ``nanobot-ai`` is importable it is used, unchanged; when it is not,
the finder installed at the *end* of ``sys.meta_path`` serves these modules instead:

    nanobot, nanobot.agent, nanobot.agent.tools, nanobot.agent.tools.base (Tool,
    ToolResult, tool_parameters), nanobot.agent.hook (AgentHook and its three contexts),
    nanobot.providers.base (ToolCallRequest), nanobot.bus.events (InboundMessage,
    OutboundMessage), nanobot.command.router (CommandContext)

Being last on ``sys.meta_path`` is what makes "use the real one when installed" free: the
shim is only asked after every path finder failed, and costs nothing until a package
imports ``nanobot``. The classes follow upstream's public signatures (nanobot-upstream.md
§2-3); they are written for this gateway, not copied. The sidecar also uses the context
classes to build what hooks and commands receive, whichever nanobot is in use.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from importlib.machinery import ModuleSpec
from types import ModuleType

from ._shim_records import (
    AgentHookContext,
    AgentRunHookContext,
    AgentTurnHookContext,
    CommandContext,
    InboundMessage,
    OutboundMessage,
    ToolCallRequest,
)
from ._shim_schema import cast_value, validate_value

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar

__all__ = ["SHIM_MODULES", "AgentHook", "Tool", "ToolResult", "install_shim", "tool_parameters"]


class ToolResult(str):
    """A tool result string with an error flag (nanobot's ``ToolResult``)."""

    is_error: bool = False

    def __new__(cls, content: object = "", is_error: bool = False) -> ToolResult:
        result = super().__new__(cls, content)
        result.is_error = is_error
        return result

    @classmethod
    def error(cls, content: object) -> ToolResult:
        return cls(content, is_error=True)


class Tool(ABC):
    """nanobot's tool base: name, description and parameters (JSON Schema) properties and an
    ``async execute(**kwargs)``; the flags and helpers upstream tools rely on."""

    config_key: ClassVar[str] = ""
    _plugin_discoverable: ClassVar[bool] = True
    _scopes: ClassVar[set[str]] = {"core"}

    @property
    @abstractmethod
    def name(self) -> str: ...

    @property
    @abstractmethod
    def description(self) -> str: ...

    @property
    @abstractmethod
    def parameters(self) -> dict[str, Any]: ...

    @abstractmethod
    async def execute(self, **kwargs: Any) -> Any: ...

    @property
    def read_only(self) -> bool:
        return False

    @property
    def exclusive(self) -> bool:
        return False

    @property
    def concurrency_safe(self) -> bool:
        return self.read_only and not self.exclusive

    @classmethod
    def config_cls(cls) -> type | None:
        return None

    @classmethod
    def enabled(cls, ctx: Any) -> bool:
        return True

    @classmethod
    def create(cls, ctx: Any) -> Tool:
        return cls()

    def runtime_context_provider(self) -> Any:
        return None

    @staticmethod
    def error(content: object) -> ToolResult:
        return ToolResult.error(content)

    def cast_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Safe schema-driven casts before validation ("3" → 3, "yes" → True)."""
        schema = self.parameters or {}
        if schema.get("type", "object") != "object" or not isinstance(params, dict):
            return params
        return cast_value(params, {**schema, "type": "object"})

    def validate_params(self, params: dict[str, Any]) -> list[str]:
        """Problems with ``params`` (empty when valid); a non-object schema is a bug."""
        if not isinstance(params, dict):
            return [f"parameters must be an object, got {type(params).__name__}"]
        schema = self.parameters or {}
        if schema.get("type", "object") != "object":
            raise ValueError(f"Schema must be object type, got {schema.get('type')!r}")
        return validate_value(params, {**schema, "type": "object"}, "")

    def to_schema(self) -> dict[str, Any]:
        """The OpenAI function-calling shape."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def tool_parameters(schema: dict[str, Any]) -> Callable[[type], type]:
    """Class decorator: a ``parameters`` property returning a fresh copy of ``schema``."""

    import copy  # deferred: only packages that use the decorator pay for it

    def decorate(cls: type) -> type:
        frozen = copy.deepcopy(schema)

        def parameters(self: Any) -> dict[str, Any]:
            return copy.deepcopy(frozen)

        cls.parameters = property(parameters)  # type: ignore[attr-defined]
        abstract = getattr(cls, "__abstractmethods__", None)
        if abstract is not None and "parameters" in abstract:
            cls.__abstractmethods__ = frozenset(abstract - {"parameters"})  # type: ignore[attr-defined]
        return cls

    return decorate


class AgentHook:
    """nanobot's per-turn hook surface; every point is a no-op until overridden.

    What each point maps to in the gateway (and the points that never fire) is in
    ``_hooks.POINTS`` and docs/nanobot.md.
    """

    def __init__(self, reraise: bool = False) -> None:
        self._reraise = reraise

    def wants_streaming(self) -> bool:
        return False

    async def before_run(self, context: AgentRunHookContext) -> None: ...
    async def after_run(self, context: AgentRunHookContext) -> None: ...
    async def on_error(self, context: AgentRunHookContext) -> None: ...
    async def on_finally(self, context: AgentRunHookContext) -> None: ...
    async def before_iteration(self, context: AgentHookContext) -> None: ...
    async def after_iteration(self, context: AgentHookContext) -> None: ...
    async def on_stream(self, context: AgentHookContext, delta: str) -> None: ...
    async def on_stream_end(self, context: AgentHookContext, *, resuming: bool) -> None: ...
    async def on_provider_tool_event(self, context: AgentHookContext, event: dict) -> None: ...
    async def before_execute_tools(self, context: AgentHookContext) -> None: ...
    async def before_execute_tool(
        self, context: AgentHookContext, tool_call: Any, tool: Any, params: dict
    ) -> None: ...
    async def after_execute_tool(
        self, context: AgentHookContext, tool_call: Any, tool: Any, params: dict, result: Any
    ) -> None: ...
    async def on_execute_tool_error(
        self, context: AgentHookContext, tool_call: Any, tool: Any, params: dict, error: Any
    ) -> None: ...
    async def emit_reasoning(self, reasoning_content: str | None) -> None: ...
    async def emit_reasoning_end(self) -> None: ...

    def finalize_content(self, context: AgentHookContext, content: str | None) -> str | None:
        return content


SHIM_MODULES: dict[str, dict[str, Any]] = {
    "nanobot": {"__version__": "0+gateway-shim"},
    "nanobot.agent": {},
    "nanobot.agent.tools": {},
    "nanobot.agent.tools.base": {
        "Tool": Tool,
        "ToolResult": ToolResult,
        "tool_parameters": tool_parameters,
    },
    "nanobot.agent.hook": {
        "AgentHook": AgentHook,
        "AgentHookContext": AgentHookContext,
        "AgentRunHookContext": AgentRunHookContext,
        "AgentTurnHookContext": AgentTurnHookContext,
    },
    "nanobot.providers": {},
    "nanobot.providers.base": {"ToolCallRequest": ToolCallRequest},
    "nanobot.bus": {},
    "nanobot.bus.events": {"InboundMessage": InboundMessage, "OutboundMessage": OutboundMessage},
    "nanobot.command": {},
    "nanobot.command.router": {"CommandContext": CommandContext},
}
_PACKAGES = frozenset(
    name for name in SHIM_MODULES if any(other.startswith(name + ".") for other in SHIM_MODULES)
)

for _module, _names in SHIM_MODULES.items():
    for _value in _names.values():
        if isinstance(_value, type) or callable(_value):
            _value.__module__ = _module


class _ShimFinder:
    """Serves ``SHIM_MODULES`` only when no other finder found ``nanobot``."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name not in SHIM_MODULES:
            return None
        if name != "nanobot" and not getattr(sys.modules.get("nanobot"), "__gateway_shim__", 0):
            return None  # the real nanobot-ai is in use
        # A loader by protocol (create_module / exec_module): importlib.abc costs the start.
        return ModuleSpec(name, self, is_package=name in _PACKAGES)  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__.update(SHIM_MODULES[module.__name__])
        module.__gateway_shim__ = True  # type: ignore[attr-defined]
        if module.__name__ in _PACKAGES:
            module.__path__ = []


def install_shim() -> None:
    if not any(isinstance(finder, _ShimFinder) for finder in sys.meta_path):
        sys.meta_path.append(_ShimFinder())
