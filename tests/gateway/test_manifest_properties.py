"""Property tests for the core's own parsers: manifests, front matter, wire messages and
session files. However malformed the input, the result is a value or a diagnostic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.base import Diagnostics
from gateway.model import (
    Session,
    SessionNotFound,
    discover,
    load_extension_manifest,
    load_tool_manifest,
    parse_front_matter,
)
from gateway.wire import MessageError, parse_extension_message

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
extension_like = st.fixed_dictionaries(
    {},
    optional={"name": json_values, "command": json_values, "response_timeout_seconds": json_values},
)
tool_like = st.fixed_dictionaries(
    {},
    optional={key: json_values for key in ("name", "description", "command", "timeout_seconds",
                                           "input_schema", "capabilities")},
)  # fmt: skip


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("manifests")


@SETTINGS
@given(data=json_values | extension_like)
def test_extension_manifest_never_raises(folder, data):
    path = folder / "extension.json"
    path.write_text(json.dumps(data))
    manifest, problem = load_extension_manifest(path)
    assert (manifest is None) != (problem is None)
    if problem is not None:
        assert problem.code in {"manifest.invalid", "manifest.unreadable"}
        assert str(path) in problem.message


@SETTINGS
@given(data=json_values | tool_like)
def test_tool_manifest_never_raises(folder, data):
    path = folder / "tool.json"
    path.write_text(json.dumps(data))
    manifest, problem = load_tool_manifest(path)
    assert (manifest is None) != (problem is None)


@SETTINGS
@given(raw=st.binary(max_size=200))
def test_manifest_bytes_never_raise(folder, raw):
    path = folder / "extension.json"
    path.write_bytes(raw)
    manifest, problem = load_extension_manifest(path)
    assert manifest is not None or problem is not None


@SETTINGS
@given(
    text=st.text(max_size=300)
    | st.builds(lambda body: f"---\n{body}\n---\n", st.text(max_size=200))
)
def test_front_matter_is_a_mapping_or_a_problem_never_an_exception(text):
    front = parse_front_matter(text)
    assert isinstance(front.data, dict) and isinstance(front.body, str)
    assert front.problem is None or front.data == {}
    assert isinstance(front.description, str)


@SETTINGS
@given(skill=st.text(max_size=300), prompt=st.text(max_size=300))
def test_discovery_of_arbitrary_skills_and_prompts_never_raises(folder, skill, prompt):
    home = folder / "home"  # the same two files each example, written over
    (home / ".agents/skills/s").mkdir(parents=True, exist_ok=True)
    (home / ".agents/skills/s/SKILL.md").write_text(skill)
    (home / ".agents/prompts").mkdir(parents=True, exist_ok=True)
    (home / ".agents/prompts/p.md").write_text(prompt)
    found = discover(home / "ws", home, trusted=False)
    assert len(found.skills) + sum(d.code == "skill.invalid" for d in found.diagnostics) == 1
    assert len(found.prompts) + sum(d.code == "prompt.invalid" for d in found.diagnostics) == 1


@SETTINGS
@given(
    data=json_values
    | st.fixed_dictionaries(
        {"type": st.sampled_from(["register", "response", "update", "ui_request"])},
        optional={
            "id": json_values,
            "commands": json_values,
            "tools": json_values,
            "content": json_values,
            "entry": json_values,
        },
    )
)
def test_extension_messages_validate_or_raise_message_error(data):
    try:
        parse_extension_message(data)
    except MessageError as error:
        assert str(error)


@SETTINGS
@given(lines=st.lists(st.text(max_size=60) | json_values.map(json.dumps), max_size=6))
def test_session_files_resume_or_say_why(folder, lines):
    directory = folder / "sessions"  # the one session file, written over each example
    directory.mkdir(exist_ok=True)
    header = json.dumps({"type": "session", "id": "s1", "workspace": "/w"})
    (directory / "s1.jsonl").write_text("\n".join([header, *lines]))
    diagnostics = Diagnostics()
    try:
        session = Session.resume(directory, "s1", diagnostics)
    except SessionNotFound:
        return
    assert all(isinstance(entry, dict) for entry in session.entries)
    assert {d.code for d in diagnostics} <= {"session.file_corrupt"}
