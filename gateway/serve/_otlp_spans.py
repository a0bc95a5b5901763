"""Spans encoded for OTLP with less work than OpenTelemetry's own encoder, byte for byte the
same request.

OpenTelemetry's OTLP exporter builds a protobuf message object for every span, attribute
and value of a batch and then serializes the whole tree: about 60 µs of the export thread's
CPU per span of a served call, measured, as much as making the span did. ``encode_spans``
writes the same ``ExportTraceServiceRequest`` (``opentelemetry-proto``'s
``trace/v1/trace.proto``, protobuf's wire format) directly. What repeats from span to span
is encoded once and kept: each attribute (key and value) seen again — a call's method, tool,
package, ecosystem, outcome, transport, session —, each span name, each resource and
instrumentation scope (those two through OpenTelemetry's own encoder, once each). A span
this encoder does not write itself (events, links, an attribute value that is not a string,
bool, int or float) is encoded by OpenTelemetry's encoder, alone; its bytes go in its
place. The request is the one OpenTelemetry's encoder writes (fields in the same order; a
test compares the bytes), so a collector cannot tell the two apart.

``LeanOtlpSpanExporter`` is OpenTelemetry's ``OTLPSpanExporter`` with its encoding done
here. It relies on members of the exporter as opentelemetry-exporter-otlp-proto-http 1.45 has them
(its HTTP client, its export metrics, its request size limit); under another release
(``TESTED_RELEASES``), where they are not found, and for any batch it does not post itself
(too large, an encoding failure, shut down), it is the SDK's exporter unchanged.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, NamedTuple

from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans as sdk_encode
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExportResult
from opentelemetry.trace import SpanKind

__all__ = ["LeanOtlpSpanExporter", "encode_spans"]

_KINDS = {SpanKind.INTERNAL: b"\x30\x01", SpanKind.SERVER: b"\x30\x02",
          SpanKind.CLIENT: b"\x30\x03", SpanKind.PRODUCER: b"\x30\x04",
          SpanKind.CONSUMER: b"\x30\x05"}  # fmt: skip
"""Field 6 (``kind``), as OpenTelemetry's encoder maps ``SpanKind``."""
_FLAGS = b"\x85\x01\x00\x01\x00\x00"  # field 16, fixed32: SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE
_FLAGS_REMOTE = b"\x85\x01\x00\x03\x00\x00"  # … and SPAN_FLAGS_CONTEXT_IS_REMOTE
_TIMES = struct.Struct("<BQBQ")  # fields 7 and 8, fixed64
_DOUBLE = struct.Struct("<d")
_KEEP = 4096
"""Attribute and name encodings kept before the store starts afresh (a value unique to each
call — a request id — would otherwise grow it without end)."""


def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64  # an int64 as protobuf writes a negative one: ten bytes
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(tag: bytes, payload: bytes) -> bytes:
    """A length-delimited field: its tag, the length, the bytes."""
    size = len(payload)
    return tag + (bytes((size,)) if size < 0x80 else _varint(size)) + payload


def _any_value(value: Any) -> bytes | None:
    """An ``AnyValue`` as OpenTelemetry's encoder writes it; None: not one written here."""
    if isinstance(value, bool):
        return b"\x10\x01" if value else b"\x10\x00"
    if isinstance(value, str):
        return _field(b"\x0a", value.encode())
    if isinstance(value, int):
        if not -(1 << 63) <= value < 1 << 63:
            return None
        return b"\x18" + _varint(value)
    if isinstance(value, float):
        return b"\x21" + _DOUBLE.pack(value)
    return None


class _Encoder:
    """What repeats, encoded once: attributes, names, resources and scopes."""

    def __init__(self) -> None:
        self._attributes: dict[tuple[str, type, Any], bytes] = {}
        self._names: dict[str, bytes] = {}
        self._headers: dict[tuple[int, int], _Header] = {}

    def attribute(self, key: str, value: Any) -> bytes | None:
        """Field 9 of a span: one ``KeyValue``; None if this encoder does not write it."""
        try:
            found = self._attributes.get((key, value.__class__, value))
        except TypeError:  # unhashable: a list, a dict
            return None
        if found is not None:
            return found
        encoded = _any_value(value)
        if encoded is None:
            return None
        body = _field(b"\x0a", key.encode()) + _field(b"\x12", encoded)
        entry = _field(b"\x4a", body)
        if len(self._attributes) >= _KEEP:
            self._attributes.clear()
        self._attributes[(key, value.__class__, value)] = entry
        return entry

    def name(self, name: str) -> bytes:
        found = self._names.get(name)
        if found is None:
            found = _field(b"\x2a", name.encode()) if name else b""
            if len(self._names) >= _KEEP:
                self._names.clear()
            self._names[name] = found
        return found

    def header(self, span: ReadableSpan) -> _Header:
        """The span's resource and scope, encoded through OpenTelemetry's encoder once per
        pair: ``ResourceSpans.resource`` and ``.schema_url``, ``ScopeSpans.scope`` and
        ``.schema_url`` (each a whole field, or nothing). Grouped as that encoder groups
        them, by equality: a resource (scope) equal to one seen before is that one, encoded
        as it was."""
        resource, scope = span.resource, span.instrumentation_scope or None
        key = (id(resource), id(scope))
        found = self._headers.get(key)
        if found is not None:
            return found
        same_resource = next((h for h in self._headers.values() if h.resource == resource), None)
        same = same_resource and next(
            (h for h in self._headers.values()
             if h.resource is same_resource.resource and h.scope == scope), None,
        )  # fmt: skip
        if same is None:
            encoded = sdk_encode([span]).resource_spans[0]
            scoped = encoded.scope_spans[0]
            same = _Header(
                resource, scope,
                _message(b"\x0a", encoded.resource) if encoded.HasField("resource") else b"",
                _text(b"\x1a", encoded.schema_url),
                _message(b"\x0a", scoped.scope) if scoped.HasField("scope") else b"",
                _text(b"\x1a", scoped.schema_url),
            )  # fmt: skip
            if same_resource is not None:
                same = same._replace(resource=same_resource.resource,
                                     resource_field=same_resource.resource_field,
                                     resource_schema=same_resource.resource_schema)  # fmt: skip
        # The span's own objects are kept with it, so their ids stay theirs.
        found = self._headers[key] = same._replace(kept=(resource, scope))
        return found

    def span(self, span: ReadableSpan) -> bytes:
        """One ``Span`` message (its bytes, without its tag and length)."""
        if span.events or span.links:
            return _sdk_span(span)
        context = span.get_span_context()
        if context is None:
            return _sdk_span(span)
        parts = [b"\x0a\x10", context.trace_id.to_bytes(16, "big"),
                 b"\x12\x08", context.span_id.to_bytes(8, "big")]  # fmt: skip
        state = context.trace_state
        if state:
            parts.append(_field(b"\x1a", ",".join(f"{k}={v}" for k, v in state.items()).encode()))
        parent = span.parent
        if parent:
            parts += (b"\x22\x08", parent.span_id.to_bytes(8, "big"))
        parts += (self.name(span.name), _KINDS[span.kind])
        start, end = span.start_time, span.end_time
        if start and end:
            parts.append(_TIMES.pack(0x39, start, 0x41, end))
        else:
            if start:
                parts.append(b"\x39" + start.to_bytes(8, "little"))
            if end:
                parts.append(b"\x41" + end.to_bytes(8, "little"))
        attributes = span.attributes
        if attributes:
            for key, value in attributes.items():
                entry = self.attribute(key, value)
                if entry is None:
                    return _sdk_span(span)
                parts.append(entry)
        for tag, count in ((b"\x50", span.dropped_attributes), (b"\x60", span.dropped_events),
                           (b"\x70", span.dropped_links)):  # fmt: skip
            if count:
                parts += (tag, _varint(count))
        status = span.status
        if status is not None:
            body = b""
            if status.description:
                body = _field(b"\x12", status.description.encode())
            code = status.status_code.value
            if code:
                body += b"\x18" + _varint(code)
            parts.append(_field(b"\x7a", body))
        parts.append(_FLAGS_REMOTE if parent is not None and parent.is_remote else _FLAGS)
        return b"".join(parts)

    def request(self, spans: Sequence[ReadableSpan]) -> bytes:
        """An ``ExportTraceServiceRequest`` of ``spans``: by resource, then scope, in the
        order first seen (as OpenTelemetry's encoder groups them)."""
        grouped: dict[int, dict[int, tuple[_Header, list[bytes]]]] = {}
        for span in spans:
            header = self.header(span)
            scopes = grouped.setdefault(id(header.resource), {})
            scoped = scopes.get(id(header.scope))
            if scoped is None:
                scoped = scopes[id(header.scope)] = (header, [])
            scoped[1].append(_field(b"\x12", self.span(span)))
        out = []
        for scopes in grouped.values():
            first = next(iter(scopes.values()))[0]
            body = [first.resource_field]
            for header, encoded in scopes.values():
                body.append(_field(b"\x12", header.scope_field + b"".join(encoded)
                                   + header.scope_schema))  # fmt: skip
            body.append(first.resource_schema)
            out.append(_field(b"\x0a", b"".join(body)))
        return b"".join(out)


class _Header(NamedTuple):
    resource: Any
    scope: Any
    resource_field: bytes
    resource_schema: bytes
    scope_field: bytes
    scope_schema: bytes
    kept: tuple[Any, Any] = (None, None)


def _message(tag: bytes, message: Any) -> bytes:
    return _field(tag, message.SerializeToString())


def _text(tag: bytes, text: str) -> bytes:
    return _field(tag, text.encode()) if text else b""


def _sdk_span(span: ReadableSpan) -> bytes:
    """One span through OpenTelemetry's own encoder."""
    encoded = sdk_encode([span]).resource_spans[0].scope_spans[0].spans[0]
    return bytes(encoded.SerializeToString())


def encode_spans(spans: Sequence[ReadableSpan], encoder: _Encoder | None = None) -> bytes:
    """``ExportTraceServiceRequest`` bytes of ``spans``, as OpenTelemetry's encoder
    serializes them (``encode_spans(spans).SerializePartialToString()``)."""
    return (encoder or _Encoder()).request(spans)


TESTED_RELEASES = frozenset({"1.45"})
"""The opentelemetry-exporter-otlp-proto-http releases (major.minor) whose exporter members
this one was read against and tested with; under any other it is the SDK's exporter
unchanged (a member that kept its name but changed its meaning would lose spans)."""


def _exporter_release() -> str:
    try:
        found = version("opentelemetry-exporter-otlp-proto-http")
    except PackageNotFoundError:
        return ""
    return ".".join(found.split(".")[:2])


class LeanOtlpSpanExporter(OTLPSpanExporter):
    """OpenTelemetry's OTLP/HTTP span exporter, its batches encoded by ``encode_spans``:
    configured, posting, retrying and counting its exports as the SDK's does."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._encoder = _Encoder()
        client, counted = getattr(self, "_client", None), getattr(self, "_metrics", None)
        self._lean = (
            _exporter_release() in TESTED_RELEASES
            and callable(getattr(client, "export", None))
            and callable(getattr(counted, "export_operation", None))
            and isinstance(getattr(self, "_max_request_size", None), int)
        )

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if not self._lean or getattr(self, "_shutdown", False):
            return super().export(spans)
        try:
            data = self._encoder.request(spans)
        except Exception:  # the SDK's encoder says what is wrong, and fails the batch
            return super().export(spans)
        limit = self._max_request_size
        if 0 < limit < len(data):  # the SDK's exporter drops it, and says so
            return super().export(spans)
        with self._metrics.export_operation(len(spans)) as result:
            sent = self._client.export(data)
            if not sent.success:
                result.error = sent.error
                status = sent.status_code
                result.error_attrs = (
                    {"http.response.status_code": status} if status is not None else None
                )
                return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS
