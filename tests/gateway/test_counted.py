"""``counted``: a count and its noun in words that agree — singular for exactly one, the
plural for every other count (none included), an irregular plural as given."""

from __future__ import annotations

import pytest

from gateway.base import counted


@pytest.mark.parametrize(
    ("count", "singular", "plural", "said"),
    [
        (1, "warning", None, "1 warning"),
        (2, "warning", None, "2 warnings"),
        (0, "warning", None, "0 warnings"),
        (1, "risk signal", None, "1 risk signal"),
        (3, "risk signal", None, "3 risk signals"),
        (1, "match", "matches", "1 match"),
        (2, "match", "matches", "2 matches"),
    ],
)
def test_one_is_singular_every_other_count_plural(count, singular, plural, said) -> None:
    assert counted(count, singular, plural) == said
