"""The negotiated protocol additions (docs/protocol.md): their names, what each kind of
process is offered, and typed models of every ``gateway`` extra an extension may send.

Nimlet v1 has no negotiation; the gateway announces its additions in
``initialize.gateway`` and reads a ``gateway`` extra only from a process it announced the
matching feature to. Every extra is parsed once, into a model (``ToolExtras``,
``CommandExtras``, ``UpdateExtras``, ``RegisterExtras``): the host never reads raw extras
ad hoc. The names import nothing (the runtimes use them at start); the models load on first
use. The Node sidecar keeps its own copy of the names; a test keeps both equal.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # the runtimes read the names at start: no typing

if TYPE_CHECKING:
    from gateway.wire.features._extras import CommandExtras as CommandExtras
    from gateway.wire.features._extras import ExtraError as ExtraError
    from gateway.wire.features._extras import Owners as Owners
    from gateway.wire.features._extras import RegisterExtras as RegisterExtras
    from gateway.wire.features._extras import RegistrationUpdate as RegistrationUpdate
    from gateway.wire.features._extras import RuntimeDiagnostic as RuntimeDiagnostic
    from gateway.wire.features._extras import RuntimeFlag as RuntimeFlag
    from gateway.wire.features._extras import ToolExtras as ToolExtras
    from gateway.wire.features._extras import UpdateExtras as UpdateExtras
    from gateway.wire.features._names import ALL_FEATURES as ALL_FEATURES
    from gateway.wire.features._names import EVENTS_EXTENDED as EVENTS_EXTENDED
    from gateway.wire.features._names import EXTENSION_FEATURES as EXTENSION_FEATURES
    from gateway.wire.features._names import HOST_ACTIONS as HOST_ACTIONS
    from gateway.wire.features._names import HOST_REQUEST as HOST_REQUEST
    from gateway.wire.features._names import (
        PROTOCOL_ADDITIONS_VERSION as PROTOCOL_ADDITIONS_VERSION,
    )
    from gateway.wire.features._names import REGISTER_DIAGNOSTICS as REGISTER_DIAGNOSTICS
    from gateway.wire.features._names import REGISTER_FLAGS as REGISTER_FLAGS
    from gateway.wire.features._names import REGISTER_HOOK_TOOLS as REGISTER_HOOK_TOOLS
    from gateway.wire.features._names import REGISTER_OWNERS as REGISTER_OWNERS
    from gateway.wire.features._names import REGISTRATION_UPDATE as REGISTRATION_UPDATE
    from gateway.wire.features._names import RUNTIME_FEATURES as RUNTIME_FEATURES
    from gateway.wire.features._names import TOOL_OUTPUT as TOOL_OUTPUT
    from gateway.wire.features._names import TOOL_PARTS as TOOL_PARTS
    from gateway.wire.features._names import TOOL_PROGRESS as TOOL_PROGRESS
    from gateway.wire.features._names import TRACE_CONTEXT as TRACE_CONTEXT
    from gateway.wire.features._names import UPDATE_DIAGNOSTICS as UPDATE_DIAGNOSTICS
    from gateway.wire.features._names import announcement as announcement

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
