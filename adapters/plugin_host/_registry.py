"""What the plugin's servers offer, under gateway names (``_naming``): each MCP tool a tool
(its ``inputSchema`` and description as they are), each static resource a read-only tool
without arguments that returns its contents (as released nanobot offers it), each prompt a
command whose text fills the prompt's arguments and whose reply is the prompt's text.

Problems are diagnostics with the plugin host's codes (``_codes.py``, docs/diagnostics.md)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._config import ServerSpec
from gateway.base import counted, schema_problem

if TYPE_CHECKING:
    from adapters.plugin_host._servers import McpServer
    from adapters.plugin_host._shapes import Prompt

__all__ = ["Registry", "Target", "prompt_arguments"]

_EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


@dataclass(frozen=True, slots=True)
class Target:
    kind: str  # "tool" | "resource" | "prompt"
    server: McpServer
    name: str  # the MCP tool or prompt name, or the resource URI
    prompt: Prompt | None = None


@dataclass(slots=True)
class Registry:
    tools: dict[str, tuple[Target, dict[str, Any]]] = field(default_factory=dict)
    commands: dict[str, tuple[Target, dict[str, Any]]] = field(default_factory=dict)
    local_commands: list[dict[str, Any]] = field(default_factory=list)
    """Commands the host serves itself (``_shell_commands``), not a server's prompts."""
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    def diagnose(self, code: str, message: str, contribution: str | None = None) -> None:
        item: dict[str, Any] = {"code": code, "message": message}
        if contribution is not None:
            item["contribution"] = contribution
        self.diagnostics.append(item)

    def add_server(self, server: McpServer) -> None:
        name = server.spec.name
        self.diagnostics += server.problems  # a remote server's: why it is not connected
        if server.failure is not None:
            # A command the gateway found on no PATH: its ``command_not_found`` said why.
            said = isinstance(server.spec, ServerSpec) and server.spec.missing
            if server.link is None and not said:
                self.diagnose(
                    codes.AGENT_PLUGINS_SERVER_FAILED.code,
                    f"MCP server {name!r} ({server.label}) did not start: {server.failure}",
                    name,
                )
            return
        for tool in server.tools:
            if not server.spec.offers(tool.name):
                continue  # filtered out by the package's own manifest
            spec: dict[str, Any] = {
                "name": server.names(tool.name),
                "description": tool.description or tool.title or tool.name,
                "input_schema": tool.input_schema or dict(_EMPTY_SCHEMA),
            }
            problem = schema_problem(spec["input_schema"])
            if problem is not None:
                self.diagnose(
                    codes.AGENT_PLUGINS_TOOL_INVALID.code,
                    f"tool {tool.name!r} of MCP server {name!r}: its inputSchema is not a "
                    f"valid JSON Schema ({problem}); not offered",
                    spec["name"],
                )
                continue
            if tool.read_only:
                spec["capabilities"] = ["read"]
            self._add(self.tools, spec, Target("tool", server, tool.name), f"tool {tool.name!r}")
        for resource in server.resources:
            spec = {
                "name": server.names(resource.name, "resource"),
                "description": f"[MCP Resource] {resource.description or resource.name}\n"
                f"URI: {resource.uri}",
                "input_schema": dict(_EMPTY_SCHEMA),
                "capabilities": ["read"],
            }
            target = Target("resource", server, resource.uri)
            self._add(self.tools, spec, target, f"resource {resource.name!r}")
        for prompt in server.prompts:
            spec = {
                "name": server.names(prompt.name, "prompt"),
                "description": _prompt_description(prompt),
            }
            target = Target("prompt", server, prompt.name, prompt)
            self._add(self.commands, spec, target, f"prompt {prompt.name!r}")
        if server.templates:
            self.diagnose(
                codes.AGENT_PLUGINS_RESOURCE_TEMPLATES.code,
                f"MCP server {name!r} offers {counted(server.templates, 'resource template')}; "
                "templates are not offered (static resources are)",
                name,
            )

    def none_started(self, servers: list[McpServer], hooked: bool) -> None:
        """The plugin's start failed when no server of it started and it offers nothing
        else (``hooked``: it subscribes to events); one server of several failing is that
        server's ``server_failed`` alone (an incomplete start, not a failed one)."""
        failed = [server for server in servers if server.failure is not None]
        local = [server for server in failed if server.link is None]
        if not local or len(failed) < len(servers) or hooked or self.local_commands:
            return
        first = local[0]
        # It says why the first server failed: that server's own ``server_failed`` would
        # say it again (a plugin of one server showed the same failure twice).
        self.diagnostics = [
            item
            for item in self.diagnostics
            if not (
                item["code"] == codes.AGENT_PLUGINS_SERVER_FAILED.code
                and item.get("contribution") == first.spec.name
            )
        ]
        self.diagnose(
            codes.AGENT_PLUGINS_NO_SERVER_STARTED.code,
            f"no MCP server of the plugin started ({len(failed)} of {len(servers)} failed); "
            f"{first.spec.name!r} ({first.label}): {first.failure}",
        )

    def add_local_commands(self, specs: list[dict[str, Any]]) -> None:
        for spec in specs:
            if spec["name"] in self.commands:
                held = self.commands[spec["name"]][0]
                self.diagnose(
                    codes.AGENT_PLUGINS_NAME_COLLISION.code,
                    f"command {spec['name']!r} is also prompt {held.name!r} of MCP server "
                    f"{held.server.spec.name!r}; the prompt is refused",
                    spec["name"],
                )
                del self.commands[spec["name"]]
            self.local_commands.append(spec)

    def _add(
        self,
        table: dict[str, tuple[Target, dict[str, Any]]],
        spec: dict[str, Any],
        target: Target,
        what: str,
    ) -> None:
        gateway_name = spec["name"]
        held = table.get(gateway_name)
        if held is not None:
            self.diagnose(
                codes.AGENT_PLUGINS_NAME_COLLISION.code,
                f"{what} of MCP server {target.server.spec.name!r} maps to {gateway_name!r}, "
                f"which {held[0].kind} {held[0].name!r} of {held[0].server.spec.name!r} "
                "already has; refused",
                gateway_name,
            )
            return
        table[gateway_name] = (target, spec)

    def register_message(
        self,
        events: list[str],
        diagnostics: bool,
        *,
        extended: bool = False,
        hook_tools: dict[str, list[str]] | None = None,
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "type": "register",
            "commands": [*(spec for _, spec in self.commands.values()), *self.local_commands],
        }
        if self.tools:
            message["tools"] = [spec for _, spec in self.tools.values()]
        if events:
            message["events"] = events
        used = [*(["register.diagnostics"] if diagnostics else []),
                 *(["events.extended"] if extended else []),
                 *(["register.hook_tools"] if hook_tools else [])]  # fmt: skip
        if used:
            message["gateway"] = {"features": used}
        if diagnostics:
            message["gateway"]["diagnostics"] = self.diagnostics
        if hook_tools:
            message["gateway"]["hook_tools"] = hook_tools
        return message


def _prompt_description(prompt: Prompt) -> str:
    text = prompt.description or prompt.title or prompt.name
    names = [a.name if a.required else f"[{a.name}]" for a in prompt.arguments]
    return f"{text} (arguments: {' '.join(names)})" if names else text


def prompt_arguments(prompt: Prompt, text: str) -> tuple[dict[str, str], str | None]:
    """A prompt's arguments from a command's text: ``name=value`` tokens by name, the other
    tokens in declared order (the last argument takes what is left); with one declared
    argument the whole text is it. Returns the arguments, or a problem to show."""
    declared = [a.name for a in prompt.arguments]
    required = [a.name for a in prompt.arguments if a.required]
    text = text.strip()
    values: dict[str, str] = {}
    if len(declared) == 1 and not text.startswith(f"{declared[0]}="):
        if text:
            values[declared[0]] = text
    elif text:
        try:
            tokens = shlex.split(text)
        except ValueError:
            tokens = text.split()
        positional: list[str] = []
        for token in tokens:
            key, equals, value = token.partition("=")
            if equals and key in declared:
                values[key] = value
            else:
                positional.append(token)
        free = [name for name in declared if name not in values]
        if len(positional) > len(free) and free:
            positional[len(free) - 1 :] = [" ".join(positional[len(free) - 1 :])]
        if positional and not free:
            return {}, f"too many arguments; the prompt takes {', '.join(declared) or 'none'}"
        values.update(zip(free, positional, strict=False))
    missing = [name for name in required if name not in values]
    if missing:
        usage = " ".join(f"{n}=…" if n in required else f"[{n}=…]" for n in declared)
        return {}, f"missing {', '.join(missing)}; usage: {usage}"
    return values, None
