"""Which diagnostics of a command make the warm session load again before the next one:
a package that did not start or ended, and a start marked incomplete (docs/session.md)."""

from __future__ import annotations

import pytest

from gateway.base import Diagnostic, find_code
from gateway.cli._session_run import _troubling


def _said(code: str) -> Diagnostic:
    declared = find_code(code)
    assert declared is not None
    return declared("a message")


@pytest.mark.parametrize("code", ["extension.start_failed", "remote_mcp.unreachable"])
def test_a_failed_or_incomplete_start_loads_again(code: str) -> None:
    assert _troubling(_said(code))


@pytest.mark.parametrize("code", ["pi.host_version_mismatch", "remote_mcp.header_unset"])
def test_other_warnings_keep_the_session_as_it_is(code: str) -> None:
    assert not _troubling(_said(code))
