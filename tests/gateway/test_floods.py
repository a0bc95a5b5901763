"""A flood from an extension cannot grow the gateway without bound: a diagnostic identical
to one kept is counted, not kept again, and diagnostics of one code about one package are
kept up to a limit and counted after it."""

from __future__ import annotations

import pytest

from gateway import open_gateway
from gateway.base import REPEAT_LIMIT, Diagnostics
from gateway.wire._codes import PROTOCOL_INVALID_JSON as NOISE
from tests._clock import virtual_time  # noqa: F401  (in memory: both backends, virtual time)


def test_the_first_fifty_of_a_code_are_kept_then_one_says_the_rest_are_counted() -> None:
    kept = Diagnostics()
    for n in range(REPEAT_LIMIT + 30):
        kept.add(NOISE(f"noise {n}", package="p"))
    codes = [d.code for d in kept]
    assert codes.count("protocol.invalid_json") == REPEAT_LIMIT
    assert codes[-1] == "diagnostics.repeated" and codes.count("diagnostics.repeated") == 1
    assert kept.suppressed == {("protocol.invalid_json", "p"): 30}


def test_another_package_or_code_has_its_own_count() -> None:
    kept = Diagnostics()
    for n in range(REPEAT_LIMIT + 1):
        kept.add(NOISE(f"noise {n}", package="p"))
    kept.add(NOISE("from q", package="q"))
    assert [d.package for d in kept if d.code == "protocol.invalid_json"].count("q") == 1


def test_an_identical_diagnostic_is_kept_once_and_counted() -> None:
    told: list[str] = []
    kept = Diagnostics(listener=lambda d: told.append(d.message))
    for _ in range(3):
        kept.add(NOISE("the same line", package="p"))
    kept.add(NOISE("the same line", package="q"))
    assert [(d.message, d.package) for d in kept] == [
        ("the same line", "p"),
        ("the same line", "q"),
    ]
    assert told == ["the same line", "the same line"]
    assert kept.suppressed == {("protocol.invalid_json", "p"): 2}


def test_a_problem_raised_again_after_a_mark_is_among_what_was_raised_since() -> None:
    kept = Diagnostics()
    kept.add(NOISE("one", package="p"))
    kept.add(NOISE("two", package="p"))
    mark = kept.mark()
    kept.add(NOISE("one", package="p"))  # a second call meeting the same problem
    assert [d.message for d in kept.since(mark)] == ["one"]


FLOOD = 100_000
"""Lines of noise: the extension runs in memory, so this measures the host alone."""


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.anyio
async def test_a_flood_of_non_json_lines_keeps_memory_and_diagnostics_bounded(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        before = _rss_kib()
        result = await gateway.call_tool("act", {"do": "flood_lines", "count": FLOOD})
        grown = _rss_kib() - before
        malformed = [d for d in gateway.diagnostics if d.code == "protocol.invalid_json"]
        suppressed = sum(gateway.diagnostics.suppressed.values())
    assert result.content == "after the flood"  # it still works
    # FLOOD identical lines: one problem, said once; the rest counted.
    assert len(malformed) == 1 and suppressed == FLOOD - 1
    # Kept, 100,000 diagnostics would be over 20 MB (about 200 bytes each).
    assert grown < 16 * 1024, f"RSS grew by {grown} KiB"
