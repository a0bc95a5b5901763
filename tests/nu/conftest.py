"""Nu runtime tests: real packages, real Node processes, on asyncio (tests/_backends.py)."""

from tests._backends import asyncio_only  # noqa: F401
