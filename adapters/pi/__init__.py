"""Pi: ``package.json`` ``pi`` manifests and convention directories.

``PiAdapter`` loads on first use, so ``python -m adapters.pi.runtime`` (the clone's
``gateway setup``) runs that module once, as ``__main__``, and nothing imports it first.
"""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.pi.adapter import PiAdapter

_WHERE = {"PiAdapter": "adapters.pi.adapter"}

__all__ = ["PiAdapter"]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
