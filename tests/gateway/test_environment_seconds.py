"""``environment_seconds``: how long a host waits, as a user sets it in a variable."""

from __future__ import annotations

import pytest

from gateway.base import environment_seconds


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [(None, 30.0), ("", 30.0), ("12.5", 12.5), (" NONE ", None), ("null", None),
     ("0", 30.0), ("-4", 30.0), ("soon", 30.0)],
)  # fmt: skip
def test_a_variable_gives_seconds_none_waits_forever_and_nonsense_is_the_default(
    monkeypatch: pytest.MonkeyPatch, raw: str | None, seconds: float | None
) -> None:
    if raw is None:
        monkeypatch.delenv("GATEWAY_SOME_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("GATEWAY_SOME_TIMEOUT", raw)
    assert environment_seconds("GATEWAY_SOME_TIMEOUT", 30.0) == seconds
