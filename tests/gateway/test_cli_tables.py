"""Human tables: a package's long, multi-line or wide text stays inside its cell."""

from __future__ import annotations

import io
import json

import pytest

from gateway.base import Diagnostic, Severity
from gateway.cli._output import diagnostics_table, summary, table, width
from tests.gateway.test_cli import gateway, ws


@pytest.fixture(autouse=True)
def _columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")


def render(rows: list[tuple[str, ...]], headers: tuple[str, ...] = ("name", "text")) -> list[str]:
    out = io.StringIO()
    table("T", headers, rows, out)
    return out.getvalue().splitlines()


def test_a_multi_line_cell_never_starts_a_line_of_its_own():
    lines = render([("a", "first\nsecond\n\nthird"), ("b", "x")])
    assert lines[2:] == ["  a     first second third", "  b     x"]


def test_the_summary_of_a_multi_line_text_is_its_first_line_and_an_ellipsis():
    assert summary("\n  Saves a note.\n\n## Usage\nmore") == "Saves a note. …"
    assert summary("one line") == "one line"
    assert summary("  \n ") == ""


def test_wide_characters_count_two_columns_when_aligning():
    lines = render([("名前", "wide"), ("ab", "narrow")])
    rows = zip(lines[2:], ("wide", "narrow"), strict=True)
    columns = [width(line[: line.index(text)]) for line, text in rows]
    assert columns == [8, 8]
    assert width("名前") == 4


def test_the_last_column_wraps_by_its_width_on_screen():
    lines = render([("a", "漢字 " * 30)])
    assert all(width(line) <= 60 for line in lines)
    assert len(lines) > 3


def test_control_characters_are_escaped_before_the_column_is_measured():
    lines = render([("\x1b[2J", "x"), ("ab", "y")])
    assert lines[2] == "  \\x1b[2J  x"
    assert lines[3].index("y") == lines[2].rindex("x") == 11


def test_list_shows_a_multi_line_tool_description_as_its_first_line(workspace):
    description = "Saves a note.\n\n## Arguments\n- text: what to save\n"
    tool = {"name": "save", "description": description, "input_schema": {"type": "object"}}
    register = {"type": "register", "commands": [], "tools": [tool]}
    workspace.add_extension("ext", language="python", register=register)
    done = gateway(workspace, "list", "--workspace", ws(workspace), "--trust")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    row = lines[lines.index("Tools (1)") + 2]
    assert row.split(None, 3)[3] == "Saves a note. …"
    assert lines[lines.index("Tools (1)") + 3] == ""
    listed = gateway(workspace, "list", "--workspace", ws(workspace), "--trust", "--json")
    assert json.loads(listed.stdout)["tools"][0]["description"] == description


def test_list_groups_its_diagnostics_by_package_each_named_once(workspace) -> None:
    """Two extensions that fail to start (started at once: which is said first varies) and a
    tool name both of them and a third claim: grouped by package, the same on every run."""
    for name in ("zeta", "alpha"):
        workspace.add_extension(name, tools=[name], before_register="crash")
    for name in ("one", "two"):
        workspace.add_extension(name, tools=["shared"])
    done = gateway(workspace, "list", "--workspace", ws(workspace), "--trust", "--json")
    said = json.loads(done.stdout)["diagnostics"]
    packages = [d["package"] for d in said]
    assert packages == sorted(packages, key=lambda p: (p is not None, p or ""))
    text = gateway(workspace, "list", "--workspace", ws(workspace), "--trust").stdout
    table = text[text.index("Diagnostics (") :].splitlines()[2:]
    firsts = [line.split()[0] for line in table if line.startswith("  ") and line[2] != " "]
    assert firsts == sorted(set(firsts), key=lambda p: (p != "(gateway)", p))
    assert {"alpha", "zeta"} <= set(firsts)


def test_the_diagnostics_table_does_not_repeat_the_package_in_its_messages() -> None:
    """The PACKAGE column names it: a message that begins `ID: ` loses that prefix there
    (`pi-subagents  warning  pi.unsupported_api  pi-subagents: registerShortcut…` read twice);
    one naming something else keeps it all."""
    said = [
        Diagnostic("pi.unsupported_api", Severity.WARNING, "pkg-a: registerShortcut is not "
                   "supported", package="pkg-a"),
        Diagnostic("pi.unsupported_api", Severity.WARNING, "index.ts: pkg-a: kept", package="pkg-a"),
    ]  # fmt: skip
    out = io.StringIO()
    diagnostics_table(said, out)
    text = " ".join(out.getvalue().split())
    assert "pkg-a warning pi.unsupported_api registerShortcut is not supported" in text, text
    assert "index.ts: pkg-a: kept" in text and "pkg-a: registerShortcut" not in text
