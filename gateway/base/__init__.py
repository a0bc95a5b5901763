"""The vocabulary and files every floor uses: diagnostics and their codes, nimlet's fixed
names, configuration, private files under ``GATEWAY_HOME``, schema validation.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.base._atomic import write_json_atomically as write_json_atomically
    from gateway.base._collection import REPEAT_LIMIT as REPEAT_LIMIT
    from gateway.base._collection import Diagnostics as Diagnostics
    from gateway.base._counted import counted as counted
    from gateway.base._grouped import by_package as by_package
    from gateway.base._grouped import named_message as named_message
    from gateway.base._home import HomeUnusable as HomeUnusable
    from gateway.base._home import ensure_home as ensure_home
    from gateway.base._home import private_dir as private_dir
    from gateway.base._home import private_file as private_file
    from gateway.base._identity import command_identity as command_identity
    from gateway.base._identity import file_identity as file_identity
    from gateway.base._inotify import Inotify as Inotify
    from gateway.base._json_depth import MAX_ARGUMENT_DEPTH as MAX_ARGUMENT_DEPTH
    from gateway.base._json_depth import json_depth as json_depth
    from gateway.base._json_depth import lone_surrogate as lone_surrogate
    from gateway.base._model_text import INSTRUCTION_OVERRIDE as INSTRUCTION_OVERRIDE
    from gateway.base._model_text import TextFlag as TextFlag
    from gateway.base._model_text import flagged_text as flagged_text
    from gateway.base._model_text import held_flags as held_flags
    from gateway.base._model_text import model_text_flags as model_text_flags
    from gateway.base._model_text import read_model_text as read_model_text
    from gateway.base._model_text import schema_text as schema_text
    from gateway.base._model_text import withheld as withheld
    from gateway.base._paths import MAX_NAME_BYTES as MAX_NAME_BYTES
    from gateway.base._paths import FileNames as FileNames
    from gateway.base._paths import PathRefused as PathRefused
    from gateway.base._paths import encode_name as encode_name
    from gateway.base._paths import encoded_form as encoded_form
    from gateway.base._paths import name_problem as name_problem
    from gateway.base._paths import safe_join as safe_join
    from gateway.base._printable import PrintableStream as PrintableStream
    from gateway.base._printable import json_text as json_text
    from gateway.base._printable import printable as printable
    from gateway.base._printable import printable_line as printable_line
    from gateway.base._printable import raw_stream as raw_stream
    from gateway.base._printable import without_colour as without_colour
    from gateway.base._progress import Progress as Progress
    from gateway.base._progress import no_progress as no_progress
    from gateway.base._progress import terminal_progress as terminal_progress
    from gateway.base._suggest import did_you_mean as did_you_mean
    from gateway.base._suggest import suggest as suggest
    from gateway.base._timeouts import environment_seconds as environment_seconds
    from gateway.base._tool_rules import NIMLET_TOOL_RULES as NIMLET_TOOL_RULES
    from gateway.base._tool_rules import ToolRules as ToolRules
    from gateway.base._validation import ArgumentValidator as ArgumentValidator
    from gateway.base._validation import schema_problem as schema_problem
    from gateway.base._version import DISTRIBUTION as DISTRIBUTION
    from gateway.base._version import gateway_version as gateway_version
    from gateway.base.codes import catalogue as catalogue
    from gateway.base.codes import find_code as find_code
    from gateway.base.config import DEFAULT_LINE_CAP as DEFAULT_LINE_CAP
    from gateway.base.config import DEFAULT_OUTPUT_CAP as DEFAULT_OUTPUT_CAP
    from gateway.base.config import GatewayConfig as GatewayConfig
    from gateway.base.diagnostics import Diagnostic as Diagnostic
    from gateway.base.diagnostics import DiagnosticCode as DiagnosticCode
    from gateway.base.diagnostics import Severity as Severity
    from gateway.base.diagnostics import define_code as define_code
    from gateway.base.errors import GatewayError as GatewayError
    from gateway.base.names import ADAPTERS_ENTRY_POINT as ADAPTERS_ENTRY_POINT
    from gateway.base.names import BUILTIN_TOOL_NAMES as BUILTIN_TOOL_NAMES
    from gateway.base.names import CAPABILITIES as CAPABILITIES
    from gateway.base.names import DEFAULT_CAPABILITIES as DEFAULT_CAPABILITIES
    from gateway.base.names import HOOK_EVENTS as HOOK_EVENTS
    from gateway.base.names import PLAN_CAPABILITIES as PLAN_CAPABILITIES
    from gateway.base.names import PROTOCOL_VERSION as PROTOCOL_VERSION
    from gateway.base.names import READ_ONLY_CAPABILITIES as READ_ONLY_CAPABILITIES


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
