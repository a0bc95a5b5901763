"""Which event loops the async tests run on. A fixture registers under the name it is
given (``anyio_backend``) in the conftest or module that imports it.

The default (tests/conftest.py) is asyncio alone: the gateway's command line runs on it,
and an end-to-end test — a sidecar, an installed package, the CLI, a served gateway —
proves what the packages do, which does not depend on the event loop. Where the loop
matters, the core's anyio code, a module widens to both: the process layer and the host's
logic in memory (``tests/_clock.virtual_time``, both backends on a virtual clock), the
child's pipes (``tests/gateway/test_pipes.py``), the per-call children, framing."""

from __future__ import annotations

import pytest

__all__ = ["asyncio_only", "both_backends"]


@pytest.fixture(params=["asyncio", "trio"], name="anyio_backend")
def both_backends(request: pytest.FixtureRequest) -> str:
    """asyncio (with the gateway's fast path) and trio (the portable anyio path)."""
    return str(request.param)


@pytest.fixture(name="anyio_backend")
def asyncio_only() -> str:
    """The default: one run on asyncio."""
    return "asyncio"
