"""The ``Gateway`` an agent embeds and the parts it owns: loading, projection onto the
registry, calls, host requests, lifecycle, activation, sharing and the gates on calls.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.host._codes import CONTRIBUTION_MISSING as CONTRIBUTION_MISSING
    from gateway.host._codes import EVENT_UNKNOWN as EVENT_UNKNOWN
    from gateway.host._codes import UI_UNANSWERED as UI_UNANSWERED
    from gateway.host._codes import USER_MESSAGE_DROPPED as USER_MESSAGE_DROPPED
    from gateway.host._confinement import describe_sandbox as describe_sandbox
    from gateway.host._confinement import interpreter_paths as interpreter_paths
    from gateway.host._discovered_ids import discovered_owner as discovered_owner
    from gateway.host._gateway import AgentStartResult as AgentStartResult
    from gateway.host._gateway import CompactionResult as CompactionResult
    from gateway.host._gateway import Gateway as Gateway
    from gateway.host._gateway import InputResult as InputResult
    from gateway.host._gateway import ToolResult as ToolResult
    from gateway.host._gateway import UnknownCommand as UnknownCommand
    from gateway.host._gateway import UnknownTool as UnknownTool
    from gateway.host._observe import ecosystem_of as ecosystem_of
    from gateway.host._observe import package_of as package_of
    from gateway.host._open import open_gateway as open_gateway
    from gateway.host._package_set import PackageChanges as PackageChanges
    from gateway.host._package_set import apply_package_changes as apply_package_changes
    from gateway.host._package_set import follow_packages as follow_packages
    from gateway.host._registrations import RegistrationCache as RegistrationCache
    from gateway.host._registrations import registration_key as registration_key
    from gateway.host._registrations import start_inputs as start_inputs
    from gateway.host._tool_search import ToolFilter as ToolFilter
    from gateway.host._tool_search import ToolMatch as ToolMatch
    from gateway.host._tool_search import ToolSearch as ToolSearch
    from gateway.host._tool_search import meta_names as meta_names
    from gateway.host._tool_search import meta_schemas as meta_schemas
    from gateway.host.editor import terminal_editor as terminal_editor
    from gateway.host.external_tools import run_tool_json as run_tool_json


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
