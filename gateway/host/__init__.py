"""The ``Gateway`` an agent embeds and the parts it owns: loading, projection onto the
registry, calls, host requests, lifecycle, activation, sharing and the gates on calls.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.host._codes import (
        CONTRIBUTION_MISSING,
        EVENT_UNKNOWN,
        UI_UNANSWERED,
        USER_MESSAGE_DROPPED,
    )
    from gateway.host._confinement import describe_sandbox, interpreter_paths
    from gateway.host._discovered_ids import discovered_owner
    from gateway.host._gateway import (
        AgentStartResult,
        CompactionResult,
        Gateway,
        InputResult,
        ToolResult,
        UnknownCommand,
        UnknownTool,
    )
    from gateway.host._observe import ecosystem_of, package_of
    from gateway.host._open import open_gateway
    from gateway.host._package_set import (
        PackageChanges,
        apply_package_changes,
        follow_packages,
    )
    from gateway.host._registrations import RegistrationCache, registration_key, start_inputs
    from gateway.host._tool_search import (
        ToolFilter,
        ToolMatch,
        ToolSearch,
        meta_names,
        meta_schemas,
    )
    from gateway.host.editor import terminal_editor
    from gateway.host.external_tools import run_tool_json

_WHERE: dict[str, str] = {
    "CONTRIBUTION_MISSING": "gateway.host._codes",
    "EVENT_UNKNOWN": "gateway.host._codes",
    "UI_UNANSWERED": "gateway.host._codes",
    "USER_MESSAGE_DROPPED": "gateway.host._codes",
    "AgentStartResult": "gateway.host._gateway",
    "CompactionResult": "gateway.host._gateway",
    "Gateway": "gateway.host._gateway",
    "InputResult": "gateway.host._gateway",
    "RegistrationCache": "gateway.host._registrations",
    "ToolFilter": "gateway.host._tool_search",
    "ToolMatch": "gateway.host._tool_search",
    "ToolResult": "gateway.host._gateway",
    "ToolSearch": "gateway.host._tool_search",
    "UnknownCommand": "gateway.host._gateway",
    "UnknownTool": "gateway.host._gateway",
    "describe_sandbox": "gateway.host._confinement",
    "discovered_owner": "gateway.host._discovered_ids",
    "ecosystem_of": "gateway.host._observe",
    "package_of": "gateway.host._observe",
    "interpreter_paths": "gateway.host._confinement",
    "meta_names": "gateway.host._tool_search",
    "meta_schemas": "gateway.host._tool_search",
    "open_gateway": "gateway.host._open",
    "PackageChanges": "gateway.host._package_set",
    "apply_package_changes": "gateway.host._package_set",
    "follow_packages": "gateway.host._package_set",
    "registration_key": "gateway.host._registrations",
    "start_inputs": "gateway.host._registrations",
    "run_tool_json": "gateway.host.external_tools",
    "terminal_editor": "gateway.host.editor",
}

__all__ = [
    "CONTRIBUTION_MISSING",
    "EVENT_UNKNOWN",
    "UI_UNANSWERED",
    "USER_MESSAGE_DROPPED",
    "AgentStartResult",
    "CompactionResult",
    "Gateway",
    "InputResult",
    "PackageChanges",
    "RegistrationCache",
    "ToolFilter",
    "ToolMatch",
    "ToolResult",
    "ToolSearch",
    "UnknownCommand",
    "UnknownTool",
    "apply_package_changes",
    "describe_sandbox",
    "discovered_owner",
    "ecosystem_of",
    "follow_packages",
    "interpreter_paths",
    "meta_names",
    "meta_schemas",
    "open_gateway",
    "package_of",
    "registration_key",
    "run_tool_json",
    "start_inputs",
    "terminal_editor",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
