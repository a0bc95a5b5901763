"""``gateway call`` with arguments of the wrong shape says what the tool takes: no plain
listing shows a tool's schema, so the error is where a user learns it."""

from __future__ import annotations

from tests.gateway.test_cli import gateway, ws

_SCHEMA = {
    "type": "object",
    "properties": {
        "scope": {"type": "string"},
        "kind": {"type": "string", "enum": ["added", "fixed"]},
        "text": {"type": "string"},
        "count": {"type": ["integer", "null"]},
    },
    "required": ["kind", "text"],
    "additionalProperties": False,
}


def test_a_missing_or_unknown_argument_names_the_arguments_the_tool_takes(workspace) -> None:
    workspace.add_extension("ext", language="python", schema=_SCHEMA)
    takes = "it takes kind (string, required), text (string, required), scope (string), count"
    for arguments in ('{"text": "hi"}', '{"kind": "added", "text": "hi", "knd": 1}'):
        done = gateway(workspace, "call", "act", arguments, "--workspace", ws(workspace), "--trust")
        assert done.returncode == 1
        assert done.stdout.startswith("[error] invalid arguments for act: "), done.stdout
        assert f"at (root); {takes} (integer/null)" in done.stdout, done.stdout
    # A wrong value of a named argument is said where it is; the list would add nothing.
    wrong = gateway(workspace, "call", "act", '{"kind": 1, "text": "hi"}', "--workspace",
                    ws(workspace), "--trust")  # fmt: skip
    assert "1 is not of type 'string' at kind" in wrong.stdout and "it takes" not in wrong.stdout
