"""A remote server's header values: ``${NAME}`` and ``${NAME:-default}`` filled from the
package's secrets and granted variables, as a shell would; what has no value named."""

from __future__ import annotations

from adapters.plugin_host._remote import expand_headers


def test_variables_are_filled_and_defaults_apply_when_unset_or_empty() -> None:
    headers = {"X-Key": "Bearer ${KEY}", "X-Org": "${ORG:-acme}", "X-Empty": "${EMPTY:-d}"}
    filled, missing = expand_headers(headers, {"KEY": "k1", "EMPTY": ""})
    assert filled == {"X-Key": "Bearer k1", "X-Org": "acme", "X-Empty": "d"}
    assert missing == []


def test_a_variable_without_a_value_is_named_once() -> None:
    filled, missing = expand_headers({"A": "${GONE}", "B": "x ${GONE} ${ALSO}"}, {})
    assert missing == ["GONE", "ALSO"]
    assert filled["B"] == "x  "
