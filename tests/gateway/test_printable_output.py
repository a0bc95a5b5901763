"""No package text reaches a terminal with its control characters or escape sequences
intact (``gateway.base.printable``), in every human output of the CLI; ``--json`` keeps
exact values, as JSON that any string — lone surrogates included — can be written as."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.base import json_text, printable
from tests._cli import run_here

HOSTILE = "ok\x1b]52;c;ZXZpbA==\x07\x1b]0;title\x07\x1b[2J\x9b31m\u202egnp.exe\u200b\U000e0041"
SHOWN = (
    "ok\\x1b]52;c;ZXZpbA==\\x07\\x1b]0;title\\x07\\x1b[2J\\x9b31m\\u202egnp.exe\\u200b\\U000e0041"
)


def test_printable_shows_every_control_and_format_character_as_an_escape():
    assert printable(HOSTILE) == SHOWN


def test_printable_keeps_newline_tab_and_ordinary_text():
    text = "line one\n\tindented — café 日本 🙂"
    assert printable(text) == text


def test_printable_keeps_an_emojis_joiner_and_shows_any_other():
    # pi-mermaid's description starts with 🧜‍♀️ (mermaid, joiner, female sign, VS16).
    for emoji in ("🧜\u200d♀️", "👩🏽\u200d💻", "🏳️\u200d🌈"):
        assert printable(f"{emoji} Pi extension") == f"{emoji} Pi extension"
    for hidden in ("pay\u200dpal", "\u200d🙂", "🙂\u200d", "x\u200d🙂", "🙂\u200dx"):
        assert "\\u200d" in printable(hidden), hidden


def test_printable_shows_a_lone_surrogate():
    assert printable("a\ud800b") == "a\\ud800b"


def test_json_text_keeps_exact_values_and_escapes_lone_surrogates():
    assert json.loads(json_text({"v": HOSTILE})) == {"v": HOSTILE}
    text = json_text({"v": "a\ud800b"})
    text.encode("utf-8")  # writable to any UTF-8 stream
    assert json.loads(text) == {"v": "a\ud800b"}


def _hostile_nimlet_tool(root: Path) -> Path:
    tool = root / ".nimlet" / "tools" / "evil"
    tool.mkdir(parents=True)
    (tool / "tool.json").write_text(
        json.dumps(
            {
                "name": "evil",
                "description": HOSTILE,
                "command": [sys.executable, "-c", f"print({HOSTILE!r})"],
                "input_schema": {"type": "object", "properties": {}},
            }
        )
    )
    return root


def _here(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """What a verb prints, in this process (tests/_cli.py): the escaping is the CLI's."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "GATEWAY_HOME": str(tmp_path / "gw")}
    return run_here(args, env=env, cwd=Path.cwd())


def _gateway(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m gateway``: where what reaches the process's own UTF-8 streams is the point
    (a lone surrogate a text buffer in this process would carry as it is)."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "GATEWAY_HOME": str(tmp_path / "gw")}
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.fixture
def hostile_workspace(tmp_path: Path) -> Path:
    return _hostile_nimlet_tool(tmp_path / "ws")


def test_list_shows_a_hostile_description_escaped(tmp_path: Path, hostile_workspace: Path):
    done = _here(tmp_path, "list", "--workspace", str(hostile_workspace), "--trust")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x9b" not in done.stdout
    assert "\\x1b]52;c;" in done.stdout


def test_call_shows_a_hostile_result_escaped_and_json_keeps_it(
    tmp_path: Path, hostile_workspace: Path
):
    args = ("call", "evil", "{}", "--workspace", str(hostile_workspace), "--trust")
    shown = _here(tmp_path, *args)
    assert "\x1b" not in shown.stdout + shown.stderr
    assert "\\x1b]0;title" in shown.stdout
    exact = _here(tmp_path, *args, "--json")
    assert HOSTILE in json.loads(exact.stdout)["content"]


def test_a_path_argument_that_is_not_utf8_is_a_usage_error(tmp_path: Path):
    bad = os.fsdecode(b"/tmp/\xff\xfe-not-utf8")
    done = _gateway(tmp_path, "trust", bad)
    assert done.returncode == 2
    assert "is not valid UTF-8" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_lone_surrogate_in_a_manifest_is_valid_json_in_inspect_and_audit(tmp_path: Path):
    tool = tmp_path / "lone"
    tool.mkdir()
    # The JSON text holds the escape; the value read from it is a lone surrogate.
    (tool / "tool.json").write_text(
        '{"name": "lone", "description": "bad \\ud800 text", '
        '"command": ["true"], "input_schema": {"type": "object"}}'
    )
    inspected = _gateway(tmp_path, "inspect", str(tool), "--json")
    assert inspected.returncode == 0, inspected.stderr
    assert "\\ud800" in inspected.stdout  # the exact value, as a JSON escape
    json.loads(inspected.stdout)
    audited = _gateway(tmp_path, "audit", str(tool), "--format", "json")
    assert "Traceback" not in audited.stderr, audited.stderr
    json.loads(audited.stdout)
    shown = _gateway(tmp_path, "inspect", str(tool))
    assert shown.returncode == 0 and "Traceback" not in shown.stderr
