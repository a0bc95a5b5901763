"""The sidecar on its own stdio: register, tool results, stdout isolation, concurrency,
cancellation, shutdown. Each test drives a real sidecar process line by line."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ._helpers import Sidecar, codes, write_package
from ._packages import KITCHEN, KITCHEN_TOOLS, REVIEW, REVIEW_MANIFEST


@pytest.fixture
def kitchen(tmp_path: Path) -> Path:
    return write_package(tmp_path / "kitchen", "test.kitchen", KITCHEN, tools=KITCHEN_TOOLS)


def review_package(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "nanobot.extension.json").write_text(json.dumps(REVIEW_MANIFEST))
    (root / "my_extension").mkdir()
    (root / "my_extension" / "__init__.py").write_text(REVIEW)
    return root


def test_register_lists_the_document_example(tmp_path: Path) -> None:
    with Sidecar(review_package(tmp_path / "review"), data_dir=tmp_path / "data") as sidecar:
        register = sidecar.register()
    assert register["tools"] == [
        {
            "name": "review_code",
            "description": "Review a local code change.",
            "input_schema": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
    ]
    assert register["commands"] == [{"name": "review", "description": "Start a review from chat."}]
    assert "events" not in register
    assert register["gateway"]["diagnostics"] == []


def test_without_negotiation_register_is_plain_v1_and_diagnostics_go_to_the_log(
    tmp_path: Path,
) -> None:
    package = write_package(
        tmp_path / "p", "test.plain", "def register(api): pass\n",
        extra=[{"kind": "channel", "name": "chat"}],
    )  # fmt: skip
    with Sidecar(package, data_dir=tmp_path / "data", features=False) as sidecar:
        register = sidecar.register()
        assert set(register) == {"type", "commands"}
        sidecar.close()
        assert "nanobot.contribution_metadata_only" in sidecar.log


def test_tool_results_strings_json_none_and_error_flags(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        assert [t["name"] for t in sidecar.register()["tools"]] == KITCHEN_TOOLS
        assert sidecar.tool("1", "echo", text="hi") == {
            "type": "response", "id": "1", "content": "hi", "is_error": False,
        }  # fmt: skip
        assert json.loads(sidecar.tool("2", "data")["content"]) == {
            "answer": 42,
            "items": [1, "two"],
        }
        assert sidecar.tool("3", "nothing")["content"] == ""
        failed = sidecar.tool("4", "fails")
        assert failed["is_error"] is True and failed["content"] == "bad input"
        flagged = sidecar.tool("5", "flagged")
        assert flagged["is_error"] is True and flagged["content"] == "flagged failure"


def test_sys_exit_in_a_tool_fails_the_call_and_the_sidecar_keeps_serving(
    kitchen: Path, tmp_path: Path
) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        exited = sidecar.tool("1", "exits")
        assert exited["is_error"] is True and exited["content"] == "3"
        assert sidecar.tool("2", "echo", text="still here")["content"] == "still here"


def test_tool_base_casts_and_validates_like_nanobot(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        assert sidecar.tool("1", "typed", count="3", flag="yes")["content"] == "3 True"
        missing = sidecar.tool("2", "typed")
        assert missing["is_error"] and "missing required count" in missing["content"]
        small = sidecar.tool("3", "typed", count=0)
        assert small["is_error"] and "count must be >= 1" in small["content"]


def test_package_output_never_reaches_the_protocol(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        # Every line the sidecar writes is parsed as JSON by `read`; stray text would fail.
        assert sidecar.tool("1", "noisy")["content"] == "quiet <eof>"
        assert sidecar.tool("2", "echo", text="after")["content"] == "after"
        sidecar.close()
    for text in ("print to stdout", "sys.stdout.write", "os.write to fd 1", "child process"):
        assert text in sidecar.log


def test_calls_overlap_and_cancel_reaches_the_tool(kitchen: Path, tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        sidecar.send({"type": "tool", "id": "slow", "name": "slow",
                      "arguments": {"seconds": 30, "marker": str(marker)}})  # fmt: skip
        started = time.monotonic()
        # No head-of-line blocking: a fast call answers while the slow one runs.
        assert sidecar.tool("fast", "echo", text="fast")["content"] == "fast"
        assert time.monotonic() - started < 5
        sidecar.send({"type": "cancel", "id": "slow"})
        deadline = time.monotonic() + 10
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.read_text() == "cancelled"
        # The cancelled request gets no reply: the next line answers the next request.
        assert sidecar.tool("next", "echo", text="next")["content"] == "next"


def test_results_larger_than_a_pipe_buffer_round_trip(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        assert len(sidecar.tool("1", "big")["content"]) == 131072
        assert len(sidecar.tool("2", "big", size=4_000_000)["content"]) == 4_000_000


@pytest.mark.parametrize("how", ["shutdown", "eof"])
def test_shutdown_or_end_of_input_ends_the_process(kitchen: Path, tmp_path: Path, how: str) -> None:
    sidecar = Sidecar(kitchen, data_dir=tmp_path / "data")
    sidecar.register()
    assert sidecar.process.stdin is not None
    if how == "shutdown":
        sidecar.send({"type": "shutdown"})
    else:
        sidecar.process.stdin.close()
    started = time.monotonic()
    assert sidecar.close() == 0
    assert time.monotonic() - started < 3


def test_requests_in_flight_at_shutdown_still_answer(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        sidecar.send({"type": "tool", "id": "1", "name": "echo", "arguments": {"text": "a"}})
        sidecar.send({"type": "shutdown"})
        assert sidecar.read()["content"] == "a"


def test_unknown_tool_command_and_every_event_are_answered(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        unknown = sidecar.tool("1", "nope")
        assert unknown["is_error"] and "unknown tool" in unknown["content"]
        assert "no /nope handler" in sidecar.command("2", "nope")["message"]
        events = ["tool_call", "tool_result", "turn_start", "turn_end", "session_start",
                  "session_end", "session_before_compact", "session_compact", "not_an_event"]  # fmt: skip
        for index, event in enumerate(events):
            assert sidecar.event(f"e{index}", event) == {"type": "response", "id": f"e{index}"}


def test_bytecode_is_not_written_into_the_package(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data", env=None) as sidecar:
        sidecar.register()
        sidecar.tool("1", "echo", text="x")
    assert not list(kitchen.rglob("__pycache__"))


def test_diagnostic_codes_come_from_the_catalogue(tmp_path: Path) -> None:
    package = write_package(
        tmp_path / "p", "test.codes", "def register(api):\n    api.register_tool(object())\n",
    )  # fmt: skip
    with Sidecar(package, data_dir=tmp_path / "data") as sidecar:
        reported = sidecar.register()["gateway"]["diagnostics"]
    assert codes(reported) == ["nanobot.registration_invalid"]
    assert set(reported[0]) == {"code", "message"}
