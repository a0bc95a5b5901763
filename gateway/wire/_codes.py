"""The diagnostic codes of the wire: output of an extension process that breaks the protocol,
and a process that fails its handshake, exits, times out or outstays its shutdown.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

EXTENSION_REGISTER_INVALID = define_code(
    "extension.register_invalid",
    W,
    "The first line of an extension was not a valid `register` message; it was stopped.",
    "Fix the register message; the diagnostic names each invalid field.",
)
EXTENSION_EXITED = define_code(
    "extension.exited",
    W,
    "A running extension exited unexpectedly; calls in flight failed.",
    "Read the extension log; `/reload` starts it again.",
)
EXTENSION_TIMEOUT = define_code(
    "extension.timeout",
    W,
    "An extension did not answer a request within response_timeout_seconds "
    "(`extension response timed out`).",
    "Make the extension answer every request, or raise response_timeout_seconds.",
)
SHUTDOWN_FORCED = define_code(
    "extension.shutdown_forced",
    I,
    "An extension did not exit after `shutdown` and closed stdin; its process group got "
    "SIGTERM (and SIGKILL if needed).",
    "Stop the read loop on `shutdown` or at end of input.",
)
PROTOCOL_INVALID_JSON = define_code(
    "protocol.invalid_json",
    W,
    "An extension wrote a stdout line that is not JSON; the line was ignored.",
    "Write only protocol messages to stdout; log to a file.",
)
PROTOCOL_INVALID_UTF8 = define_code(
    "protocol.invalid_utf8",
    W,
    "An extension wrote a stdout line that is not valid UTF-8; the line was ignored.",
    "Encode output as UTF-8.",
)
PROTOCOL_LINE_TOO_LONG = define_code(
    "protocol.line_too_long",
    W,
    "An extension wrote a line longer than the line cap (16 MiB by default); it was skipped.",
    "Send less per message, or raise `line_cap` in the gateway config.",
)
PROTOCOL_INVALID_MESSAGE = define_code(
    "protocol.invalid_message",
    W,
    "An extension wrote JSON that is not a valid protocol message; it was ignored.",
    "Fix the message; the diagnostic names the invalid field.",
)
PROTOCOL_UNKNOWN_ID = define_code(
    "protocol.unknown_id",
    W,
    "An extension replied to an id the gateway never sent it.",
    "Echo the id of the request being answered.",
)
PROTOCOL_DUPLICATE_REPLY = define_code(
    "protocol.duplicate_reply",
    W,
    "An extension replied twice to the same request; the second reply was ignored.",
    "Send exactly one response per request.",
)
PROTOCOL_LATE_REPLY = define_code(
    "protocol.late_reply",
    I,
    "A reply arrived after its request had timed out or was cancelled; it was ignored.",
    "Answer faster, or raise response_timeout_seconds.",
)
UI_UNSUPPORTED_METHOD = define_code(
    "ui.unsupported_method",
    W,
    "An extension sent a ui_request with a method other than `question`, `confirm`, `input` "
    "or `password`; it was answered cancelled (nimlet would leave it unanswered).",
    "Use one of the four methods.",
)
