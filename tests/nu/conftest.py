"""Nu runtime tests run on asyncio, except the modules that import ``both_backends``
(tests/_backends.py)."""

from tests._backends import asyncio_only  # noqa: F401
