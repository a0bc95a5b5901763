"""How a client shows a tool's calls (Nu's client.tools): placeholders filled from the
arguments, the body argument as a code block."""

from __future__ import annotations

from gateway.model import fill_placeholders, render_call


def test_placeholders_take_the_arguments_as_text_or_json() -> None:
    assert fill_placeholders("Post to #{channel} ({count})", {"channel": "team", "count": 3}) == (
        "Post to #team (3)"
    )


def test_a_missing_argument_shows_as_an_ellipsis_and_text_stays_on_one_line() -> None:
    assert fill_placeholders("Search {query} in {repo}", {"query": "a\nb"}) == "Search a b in …"


def test_the_body_argument_is_shown_as_code_in_its_language() -> None:
    display = {"icon": "🐍", "title": "Run {file}",
               "body": {"argument": "code", "language": "{lang}"}}  # fmt: skip
    lines = render_call(display, {"file": "x.py", "code": "print(1)\nprint(2)", "lang": "python"})
    assert lines == ["🐍 Run x.py", "```python", "print(1)", "print(2)", "```"]


def test_no_display_shows_nothing() -> None:
    assert render_call(None, {"a": 1}) == [] and render_call({}, {}) == []
