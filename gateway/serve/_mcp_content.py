"""What the gateway holds, in MCP's shapes: tools, tool results, progress, prompts (commands
and prompt templates), resources (skills) and elicitation forms (questions).

Pure conversions, no I/O but reading a skill's file; ``_mcp`` wires them to the SDK's server.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

import anyio
import mcp_types as types

from gateway.base import PLAN_CAPABILITIES
from gateway.host import Gateway
from gateway.model import (
    CommandEntry,
    CommandOutcome,
    ToolEntry,
    ToolResult,
    expand_prompt,
    parse_front_matter,
)
from gateway.packages import PackageStatus

__all__ = [
    "ARGUMENTS",
    "DETAILS_META",
    "RESOURCE_NOT_FOUND",
    "SKILL_BYTES",
    "ServedSkill",
    "ServedTemplate",
    "expand_template",
    "mcp_prompt",
    "mcp_result",
    "mcp_tool",
    "prompt_messages",
    "read_skill",
    "read_skill_resource",
    "served_skills",
    "served_templates",
    "skill_for",
    "skill_resources",
    "skill_uri",
    "template_prompt",
]

RESOURCE_NOT_FOUND = -32002
"""MCP's error code for an unknown resource URI."""
DETAILS_META = "extension-gateway/details"
"""``_meta`` key of a tool result carrying the runtime's ``details`` (Pi's, a sidecar's)."""
SKILL_BYTES = 1024 * 1024
"""A skill file larger than this is cut (a resource is read whole into one message)."""
ARGUMENTS = "arguments"
"""The one prompt argument: the text after the command, as typed after ``/name``."""


def mcp_tool(
    tool: ToolEntry, name: str | None = None, description: str | None = None
) -> types.Tool:
    schema = dict(tool.input_schema)
    # nimlet tool arguments are always an object; MCP requires the schema to say so.
    schema.setdefault("type", "object")
    capabilities = set(tool.capabilities)
    return types.Tool(
        name=name or tool.name,
        description=tool.description if description is None else description,
        input_schema=schema,
        output_schema=tool.output_schema,
        annotations=types.ToolAnnotations(
            read_only_hint=capabilities <= PLAN_CAPABILITIES,
            open_world_hint="network" in capabilities,
        ),
        _meta={"extension-gateway/owner": tool.owner,
               "extension-gateway/capabilities": list(tool.capabilities)},
    )  # fmt: skip


def mcp_result(result: ToolResult) -> types.CallToolResult:
    """Text and image parts as MCP content; an image the extension left in a workspace file
    is a ``resource_link`` to it (the gateway never reads it); ``details`` in ``_meta``; a
    structured result (``tool.output``) as ``structuredContent``."""
    content: list[types.ContentBlock] = []
    for part in result.parts or []:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            content.append(types.TextContent(type="text", text=part["text"]))
        elif kind == "image" and isinstance(part.get("data"), str):
            content.append(
                types.ImageContent(
                    type="image", data=part["data"], mime_type=str(part.get("mime_type") or "")
                )
            )
        elif kind == "image" and isinstance(part.get("path"), str):
            path = Path(part["path"])
            content.append(
                types.ResourceLink(
                    type="resource_link", name=path.name, uri=path.as_uri(),
                    mime_type=str(part.get("mime_type") or "") or None,
                )
            )  # fmt: skip
    if not any(isinstance(block, types.TextContent) for block in content):
        # The text is what hooks, sessions and models see: never lose it.
        content.insert(0, types.TextContent(type="text", text=result.content))
    meta = {DETAILS_META: result.details} if result.details is not None else None
    return types.CallToolResult(
        content=content,
        is_error=result.is_error,
        structured_content=result.structured,
        _meta=meta,
    )


# --------------------------------------------------------------------------- prompts


def mcp_prompt(command: CommandEntry, description: str | None = None) -> types.Prompt:
    return types.Prompt(
        name=command.name,
        description=(command.description if description is None else description) or None,
        arguments=[
            types.PromptArgument(
                name=ARGUMENTS,
                description=f"The text after /{command.name}, as typed in a composer",
                required=False,
            )
        ],
    )


def prompt_messages(name: str, outcome: CommandOutcome, note: str = "") -> types.GetPromptResult:
    """A command's reply as prompt messages: what it printed (``message``, an error) as the
    assistant's, the turn it starts (``prompt``) as the user's."""
    messages: list[types.PromptMessage] = []
    printed = [text for text in (outcome.message, note) if text]
    if outcome.error:
        printed.append(f"Extension command failed: {outcome.error}")
    if printed:
        messages.append(
            types.PromptMessage(
                role="assistant", content=types.TextContent(type="text", text="\n".join(printed))
            )
        )
    if outcome.prompt and not outcome.error:
        messages.append(
            types.PromptMessage(
                role="user", content=types.TextContent(type="text", text=outcome.prompt)
            )
        )
    return types.GetPromptResult(description=f"/{name}", messages=messages)


@dataclass(frozen=True, slots=True)
class ServedTemplate:
    """A prompt template an active package ships (Pi's ``pi.prompts``): the gateway has no
    command for it, so the server expands it itself."""

    name: str
    description: str
    path: Path


def served_templates(gateway: Gateway) -> list[ServedTemplate]:
    """Prompt templates of the active packages, except where a command has the name."""
    found: dict[str, ServedTemplate] = {}
    for status in gateway.packages:
        if status.ready:
            for name, description, path in _package_files(status, "prompt"):
                if gateway.registry.command(name) is None:
                    found.setdefault(name, ServedTemplate(name, description, path))
    return list(found.values())


def template_prompt(template: ServedTemplate) -> types.Prompt:
    return types.Prompt(
        name=template.name,
        description=template.description or None,
        arguments=[
            types.PromptArgument(
                name=ARGUMENTS, description="Fills $ARGUMENTS and $@", required=False
            )
        ],
    )


def expand_template(template: ServedTemplate, arguments: str) -> types.GetPromptResult:
    text = template.path.read_text(encoding="utf-8")[:SKILL_BYTES]
    body = parse_front_matter(text).body.strip("\n")
    message = types.PromptMessage(
        role="user", content=types.TextContent(type="text", text=expand_prompt(body, arguments))
    )
    return types.GetPromptResult(description=template.description or None, messages=[message])


def _package_files(status: PackageStatus, kind: str) -> list[tuple[str, str, Path]]:
    """(name, description, path) of a package's contributions of ``kind`` that name a file
    inside the package (one that leaves it is not served)."""
    root = Path(status.entry.root).resolve()
    found = []
    for contribution in status.entry.contributions:
        relative = contribution.detail.get("path")
        if contribution.kind != kind or not isinstance(relative, str):
            continue
        path = (root / relative).resolve()
        if root in path.parents:
            found.append((contribution.name, contribution.description, path))
    return found


# --------------------------------------------------------------------------- skills


@dataclass(frozen=True, slots=True)
class ServedSkill:
    name: str
    description: str
    path: Path


def skill_uri(name: str) -> str:
    return f"skill://{quote(name, safe='')}/SKILL.md"


def served_skills(gateway: Gateway) -> list[ServedSkill]:
    """The workspace's skills and the skills of the active packages (a package's
    ``SKILL.md`` folders), each name once (a later one replaces an earlier one)."""
    found: dict[str, ServedSkill] = {}
    for skill in gateway.discovery.skills:
        found[skill.name] = ServedSkill(skill.name, skill.description, skill.path)
    for status in gateway.packages:
        if status.ready:
            for name, description, path in _package_files(status, "skill"):
                found[name] = ServedSkill(name, description, path)
    return list(found.values())


def skill_for(skills: list[ServedSkill], uri: str) -> ServedSkill | None:
    match = re.fullmatch(r"skill://([^/]+)/SKILL\.md", uri)
    if match is None:
        return None
    name = unquote(match[1])
    return next((skill for skill in skills if skill.name == name), None)


def read_skill(skill: ServedSkill) -> str:
    with skill.path.open("rb") as handle:
        data = handle.read(SKILL_BYTES + 1)
    text = data[:SKILL_BYTES].decode("utf-8", "replace")
    if len(data) > SKILL_BYTES:
        text += f"\n\n[cut at {SKILL_BYTES // 1024} KiB by gateway serve]\n"
    return text


def skill_resources(
    gateway: Gateway, describe: Callable[[str, str | None, str], str]
) -> types.ListResourcesResult:
    """Each served skill as a resource; ``describe`` (name, owner, text) → its description."""
    return types.ListResourcesResult(
        resources=[
            types.Resource(
                name=skill.name, uri=skill_uri(skill.name),
                description=describe(skill.name, None, skill.description) or None,
                mime_type="text/markdown",
            )
            for skill in served_skills(gateway)
        ]
    )  # fmt: skip


async def read_skill_resource(gateway: Gateway, uri: str) -> types.ReadResourceResult:
    """A served skill's ``SKILL.md``, by its ``skill://`` URI."""
    from mcp.shared.exceptions import MCPError  # the SDK's server: not for serve --nimlet

    skill = skill_for(served_skills(gateway), uri)
    if skill is None:
        raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}")
    try:
        text = await anyio.to_thread.run_sync(read_skill, skill)
    except OSError as error:
        raise MCPError(types.INTERNAL_ERROR, f"cannot read {skill.path}: {error}") from None
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)]
    )
