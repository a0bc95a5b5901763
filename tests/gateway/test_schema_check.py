"""``schema_problem`` knows a plain schema valid without importing ``jsonschema`` (a CLI
call pays for that import otherwise), and never says valid where ``jsonschema`` says not."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import SchemaError
from jsonschema.validators import validator_for

from gateway.base._validation import _plainly_valid, schema_problem


def jsonschema_accepts(schema: Any) -> bool:
    try:
        validator_for(schema).check_schema(schema)
    except SchemaError:
        return False
    return True


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2),
    st.sampled_from(["", "a", "[", "string", "integer"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "a"]), inner, max_size=2)
    ),
    max_leaves=6,
)
keywords = st.sampled_from(
    [
        "type",
        "required",
        "enum",
        "const",
        "default",
        "examples",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "pattern",
        "uniqueItems",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "title",
        "description",
        "dependencies",
        "$ref",
        "$schema",
    ]
)
schemas = st.recursive(
    st.dictionaries(keywords, values, max_size=4) | st.booleans(),
    lambda inner: st.one_of(
        st.fixed_dictionaries(
            {"properties": st.dictionaries(st.sampled_from(["x", "y"]), inner, max_size=2)}
        ),
        st.fixed_dictionaries({"items": inner | st.lists(inner, max_size=2)}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, max_size=2)}),
        st.fixed_dictionaries(
            {"not": inner, "type": st.sampled_from(["object", "strin", ["a"], []])}
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(schemas)
def test_the_fast_check_never_accepts_what_jsonschema_refuses(schema):
    if _plainly_valid(schema):
        assert jsonschema_accepts(schema), schema


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        {"type": ["string", "null"], "minLength": 1, "pattern": "^a+$", "description": "d"},
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": False,
            "properties": {"n": {"type": "integer", "minimum": 0}},
        },
        {
            "anyOf": [
                {"type": "string", "enum": ["a", "b"]},
                {"type": "array", "items": {"type": "number"}},
            ]
        },
    ],
)
def test_plain_tool_schemas_are_valid_without_jsonschema(schema):
    assert _plainly_valid(schema) and jsonschema_accepts(schema)
    assert schema_problem(schema) is None


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ({"type": "strng"}, "strng"),
        ({"type": "object", "required": "text"}, "is not of type 'array'"),
        ({"properties": {"x": {"minLength": -1}}}, "-1"),
        ({"pattern": "("}, "regex"),
        ({"$schema": 1}, "not a string"),
    ],
)
def test_an_invalid_schema_is_still_said_by_jsonschema(schema, words):
    problem = schema_problem(schema)
    assert problem is not None and words in problem


def test_a_plain_schema_is_checked_without_importing_jsonschema():
    code = (
        "import sys; from gateway.base import schema_problem; "
        "assert schema_problem({'type': 'object', 'properties': {'t': {'type': 'string'}}}) is None; "
        "print('jsonschema' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
