"""What a served request's spans and counts leave for after its reply
(``telemetry.after_reply``), as ``serve --http`` runs it (``_observe.answered``): after the
part of the response written once the handler finished, in the context it was handed over
in, in order, and nothing lost — work handed over after the request ended is done at once;
with nothing recorded, the request is passed on untouched. An ASGI app stands in for the MCP
SDK's transport: its handler runs in a task of its own, as the SDK's dispatcher runs it."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import anyio
import pytest

from gateway.base import telemetry
from gateway.base.telemetry import AfterReply, after_reply
from gateway.serve._gauges import Gauges
from gateway.serve._observe import answered
from gateway.serve._prometheus import PrometheusMetrics

pytestmark = pytest.mark.anyio

WHO: ContextVar[str] = ContextVar("who", default="nobody")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def counted() -> Any:
    metrics = PrometheusMetrics(Gauges())
    telemetry.install(None, (metrics,))
    yield metrics
    telemetry.install()


def calls(metrics: PrometheusMetrics) -> int:
    text = metrics.render().decode()
    return sum(1 for line in text.splitlines() if line.startswith("gateway_tool_calls_total{"))


async def test_the_work_runs_once_the_reply_is_written_in_its_own_context(counted) -> None:
    seen: list[Any] = []
    kept: list[AfterReply | None] = []

    async def handler() -> None:
        WHO.set("handler")
        telemetry.count_tool_call("echo", "desk", "nimlet", "ok", 0.25)
        after_reply(lambda: seen.append(("span ended", WHO.get())))
        kept.append(telemetry.AFTER_REPLY.get())

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        async with anyio.create_task_group() as group:  # the SDK's dispatcher task
            group.start_soon(handler)
        await send({"type": "http.response.body", "body": b"reply", "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def send(message: dict[str, Any]) -> None:
        seen.append((message["type"], message.get("body"), calls(counted)))

    await answered(app, {}, None, send)
    assert seen == [
        ("http.response.start", None, 0),
        ("http.response.body", b"reply", 0),  # the client has its reply before the count
        ("span ended", "handler"),  # then the span ends, in the handler's context
        ("http.response.body", b"", 1),  # counted by then
    ]
    assert calls(counted) == 1
    # Handed over after the request ended: done at once.
    later = kept[0]
    assert later is not None and telemetry.AFTER_REPLY.get() is None
    later.add(seen.append, "late")
    assert seen[-1] == "late" and not later.pending


async def test_what_is_left_when_the_request_ends_without_a_reply_is_done(counted) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        telemetry.count_tool_call("echo", "desk", "nimlet", "cancelled", 0.1)
        raise OSError("the client went away")

    with pytest.raises(OSError):
        await answered(app, {}, None, None)
    assert calls(counted) == 1


async def test_nothing_is_kept_when_nothing_is_recorded() -> None:
    telemetry.install()
    seen: list[Any] = []

    async def send(message: dict[str, Any]) -> None:
        pass

    async def app(scope: Any, receive: Any, given: Any) -> None:
        seen.append((given is send, telemetry.AFTER_REPLY.get()))
        after_reply(seen.append, "at once")

    await answered(app, {}, None, send)
    assert seen == [(True, None), "at once"]


def test_one_failure_stops_none_of_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    later, done = AfterReply(), []
    later.add(lambda: 1 / 0)
    later.add(done.append, "rest")
    later.close()
    assert done == ["rest"]
    assert "ZeroDivisionError" in capsys.readouterr().err


def test_attributes_wait_for_the_reply_only_where_the_sampler_never_reads_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``McpSpan`` starts a span without its attributes (set at once after, or after the
    reply) only under OpenTelemetry's own samplers that ``OTEL_TRACES_SAMPLER`` names,
    which pass them through unread; any other sampler is given them at the start."""
    from opentelemetry.sdk.trace import sampling

    from gateway.serve._mcp_span import _blind

    for name in ("always_on", "always_off", "traceidratio", "parentbased_always_on",
                 "parentbased_always_off", "parentbased_traceidratio"):  # fmt: skip
        monkeypatch.setenv("OTEL_TRACES_SAMPLER", name)
        monkeypatch.setenv("OTEL_TRACES_SAMPLER_ARG", "0.5")
        assert _blind(sampling._get_from_env_or_default()), name

    class Reading(sampling.Sampler):
        def should_sample(self, *args: Any, **kwargs: Any) -> sampling.SamplingResult:
            return sampling.SamplingResult(sampling.Decision.RECORD_AND_SAMPLE)

        def get_description(self) -> str:
            return "reads"

    for sampler in (Reading(), sampling.ParentBased(Reading()),
                    sampling.AlwaysRecordSampler(sampling.ALWAYS_ON), None):  # fmt: skip
        assert not _blind(sampler)
