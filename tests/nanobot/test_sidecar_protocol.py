"""The sidecar on its own stdio: register, nanobot's tool results and casting, what a
package's input() and sys.exit do, where diagnostics go. Each test drives a real sidecar
process line by line. The wire contract every runtime shares (stdout, overlap, cancel,
shutdown, crash, plain v1, unknown requests, large messages) is tests/sidecars."""

from __future__ import annotations

import json
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


def test_without_negotiation_diagnostics_go_to_the_log(tmp_path: Path) -> None:
    package = write_package(
        tmp_path / "p", "test.plain", "def register(api): pass\n",
        extra=[{"kind": "channel", "name": "chat"}],
    )  # fmt: skip
    with Sidecar(package, data_dir=tmp_path / "data", features=False) as sidecar:
        sidecar.register()
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


def test_package_input_sees_end_of_file_not_protocol_lines(kitchen: Path, tmp_path: Path) -> None:
    with Sidecar(kitchen, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        assert sidecar.tool("1", "reads_input")["content"] == "read <eof>"
        assert sidecar.tool("2", "echo", text="after")["content"] == "after"


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
