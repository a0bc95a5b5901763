"""Which event loops the async tests run on. A fixture registers under the name it is
given (``anyio_backend``) in the conftest or module that imports it, so a suite narrows the
default by importing ``asyncio_only`` into its conftest, and one of its modules widens it
again by importing ``both_backends``."""

from __future__ import annotations

import pytest

__all__ = ["asyncio_only", "both_backends"]


@pytest.fixture(params=["asyncio", "trio"], name="anyio_backend")
def both_backends(request: pytest.FixtureRequest) -> str:
    """The default (tests/conftest.py): every async test on asyncio and on trio."""
    return str(request.param)


@pytest.fixture(name="anyio_backend")
def asyncio_only() -> str:
    """For a suite about an ecosystem's semantics, which do not depend on the event loop
    (Pi, OpenClaw, Nu): the transport under them runs on both backends in the core suites,
    in tests/sidecars, and in each such suite's modules that import ``both_backends``."""
    return "asyncio"
