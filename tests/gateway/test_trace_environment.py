"""``exec``'s ``trace`` (negotiated ``trace.context``) becomes the command's ``TRACEPARENT``
and ``TRACESTATE`` only when it has the W3C shape: a runtime's text never reaches another
program's environment otherwise."""

from __future__ import annotations

from gateway.host._host_requests import trace_environment

PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_a_well_formed_trace_is_passed_on() -> None:
    assert trace_environment({"traceparent": PARENT, "tracestate": "rojo=00f067aa0ba902b7"}) == {
        "TRACEPARENT": PARENT,
        "TRACESTATE": "rojo=00f067aa0ba902b7",
    }


def test_anything_else_passes_nothing() -> None:
    for trace in (None, "x", [], {"traceparent": "00-xyz"}, {"traceparent": PARENT + "\n"},
                  {"traceparent": PARENT.upper()}, {"tracestate": "a=b"}):  # fmt: skip
        assert trace_environment(trace) == {}


def test_a_tracestate_with_control_characters_or_too_long_is_dropped() -> None:
    for state in ("a=b\x1b[2J", "a=" + "b" * 600, 7):
        assert trace_environment({"traceparent": PARENT, "tracestate": state}) == {
            "TRACEPARENT": PARENT
        }
