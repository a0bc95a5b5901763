"""The vocabulary and files every floor uses: diagnostics and their codes, nimlet's fixed
names, configuration, private files under ``GATEWAY_HOME``, schema validation.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.base._atomic import write_json_atomically
    from gateway.base._collection import REPEAT_LIMIT, Diagnostics
    from gateway.base._counted import counted
    from gateway.base._grouped import by_package, named_message
    from gateway.base._home import HomeUnusable, ensure_home, private_dir, private_file
    from gateway.base._identity import command_identity, file_identity
    from gateway.base._inotify import Inotify
    from gateway.base._json_depth import MAX_ARGUMENT_DEPTH, json_depth, lone_surrogate
    from gateway.base._model_text import (
        INSTRUCTION_OVERRIDE,
        TextFlag,
        flagged_text,
        held_flags,
        model_text_flags,
        read_model_text,
        schema_text,
        withheld,
    )
    from gateway.base._paths import (
        MAX_NAME_BYTES,
        FileNames,
        PathRefused,
        encode_name,
        encoded_form,
        name_problem,
        safe_join,
    )
    from gateway.base._printable import (
        PrintableStream,
        json_text,
        printable,
        printable_line,
        raw_stream,
        without_colour,
    )
    from gateway.base._progress import Progress, no_progress, terminal_progress
    from gateway.base._suggest import did_you_mean, suggest
    from gateway.base._timeouts import environment_seconds
    from gateway.base._tool_rules import NIMLET_TOOL_RULES, ToolRules
    from gateway.base._validation import ArgumentValidator, schema_problem
    from gateway.base._version import DISTRIBUTION, gateway_version
    from gateway.base.codes import catalogue, find_code
    from gateway.base.config import DEFAULT_LINE_CAP, DEFAULT_OUTPUT_CAP, GatewayConfig
    from gateway.base.diagnostics import Diagnostic, DiagnosticCode, Severity, define_code
    from gateway.base.errors import GatewayError
    from gateway.base.lazy import lazy_attributes
    from gateway.base.names import (
        ADAPTERS_ENTRY_POINT,
        BUILTIN_TOOL_NAMES,
        CAPABILITIES,
        DEFAULT_CAPABILITIES,
        HOOK_EVENTS,
        PLAN_CAPABILITIES,
        PROTOCOL_VERSION,
        READ_ONLY_CAPABILITIES,
    )

_WHERE: dict[str, str] = {
    "Inotify": "gateway.base._inotify",
    "write_json_atomically": "gateway.base._atomic",
    "command_identity": "gateway.base._identity",
    "file_identity": "gateway.base._identity",
    "INSTRUCTION_OVERRIDE": "gateway.base._model_text",
    "TextFlag": "gateway.base._model_text",
    "model_text_flags": "gateway.base._model_text",
    "held_flags": "gateway.base._model_text",
    "flagged_text": "gateway.base._model_text",
    "read_model_text": "gateway.base._model_text",
    "schema_text": "gateway.base._model_text",
    "withheld": "gateway.base._model_text",
    "PrintableStream": "gateway.base._printable",
    "json_text": "gateway.base._printable",
    "printable": "gateway.base._printable",
    "printable_line": "gateway.base._printable",
    "raw_stream": "gateway.base._printable",
    "without_colour": "gateway.base._printable",
    "ArgumentValidator": "gateway.base._validation",
    "ADAPTERS_ENTRY_POINT": "gateway.base.names",
    "BUILTIN_TOOL_NAMES": "gateway.base.names",
    "NIMLET_TOOL_RULES": "gateway.base._tool_rules",
    "ToolRules": "gateway.base._tool_rules",
    "CAPABILITIES": "gateway.base.names",
    "DEFAULT_CAPABILITIES": "gateway.base.names",
    "DEFAULT_LINE_CAP": "gateway.base.config",
    "DEFAULT_OUTPUT_CAP": "gateway.base.config",
    "DISTRIBUTION": "gateway.base._version",
    "Diagnostic": "gateway.base.diagnostics",
    "DiagnosticCode": "gateway.base.diagnostics",
    "Diagnostics": "gateway.base._collection",
    "by_package": "gateway.base._grouped",
    "counted": "gateway.base._counted",
    "named_message": "gateway.base._grouped",
    "FileNames": "gateway.base._paths",
    "GatewayConfig": "gateway.base.config",
    "GatewayError": "gateway.base.errors",
    "HOOK_EVENTS": "gateway.base.names",
    "HomeUnusable": "gateway.base._home",
    "MAX_ARGUMENT_DEPTH": "gateway.base._json_depth",
    "MAX_NAME_BYTES": "gateway.base._paths",
    "PLAN_CAPABILITIES": "gateway.base.names",
    "PROTOCOL_VERSION": "gateway.base.names",
    "PathRefused": "gateway.base._paths",
    "Progress": "gateway.base._progress",
    "READ_ONLY_CAPABILITIES": "gateway.base.names",
    "REPEAT_LIMIT": "gateway.base._collection",
    "Severity": "gateway.base.diagnostics",
    "catalogue": "gateway.base.codes",
    "find_code": "gateway.base.codes",
    "define_code": "gateway.base.diagnostics",
    "encode_name": "gateway.base._paths",
    "encoded_form": "gateway.base._paths",
    "ensure_home": "gateway.base._home",
    "gateway_version": "gateway.base._version",
    "environment_seconds": "gateway.base._timeouts",
    "json_depth": "gateway.base._json_depth",
    "lone_surrogate": "gateway.base._json_depth",
    "lazy_attributes": "gateway.base.lazy",
    "name_problem": "gateway.base._paths",
    "no_progress": "gateway.base._progress",
    "private_dir": "gateway.base._home",
    "private_file": "gateway.base._home",
    "safe_join": "gateway.base._paths",
    "did_you_mean": "gateway.base._suggest",
    "suggest": "gateway.base._suggest",
    "schema_problem": "gateway.base._validation",
    "terminal_progress": "gateway.base._progress",
}

__all__ = [
    "ADAPTERS_ENTRY_POINT",
    "BUILTIN_TOOL_NAMES",
    "CAPABILITIES",
    "DEFAULT_CAPABILITIES",
    "DEFAULT_LINE_CAP",
    "DEFAULT_OUTPUT_CAP",
    "DISTRIBUTION",
    "HOOK_EVENTS",
    "INSTRUCTION_OVERRIDE",
    "MAX_ARGUMENT_DEPTH",
    "MAX_NAME_BYTES",
    "NIMLET_TOOL_RULES",
    "PLAN_CAPABILITIES",
    "PROTOCOL_VERSION",
    "READ_ONLY_CAPABILITIES",
    "REPEAT_LIMIT",
    "ArgumentValidator",
    "Diagnostic",
    "DiagnosticCode",
    "Diagnostics",
    "FileNames",
    "GatewayConfig",
    "GatewayError",
    "HomeUnusable",
    "Inotify",
    "PathRefused",
    "PrintableStream",
    "Progress",
    "Severity",
    "TextFlag",
    "ToolRules",
    "by_package",
    "catalogue",
    "command_identity",
    "counted",
    "define_code",
    "did_you_mean",
    "encode_name",
    "encoded_form",
    "ensure_home",
    "environment_seconds",
    "file_identity",
    "find_code",
    "flagged_text",
    "gateway_version",
    "held_flags",
    "json_depth",
    "json_text",
    "lazy_attributes",
    "lone_surrogate",
    "model_text_flags",
    "name_problem",
    "named_message",
    "no_progress",
    "printable",
    "printable_line",
    "private_dir",
    "private_file",
    "raw_stream",
    "read_model_text",
    "safe_join",
    "schema_problem",
    "schema_text",
    "suggest",
    "terminal_progress",
    "withheld",
    "without_colour",
    "write_json_atomically",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
