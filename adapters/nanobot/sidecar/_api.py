"""The ``api`` object a package's ``register(api)`` receives.

nanobot's v1 API is three methods (``register_tool``, ``register_command``,
``register_hook_factory``) and nothing else: upstream extensions had no configuration, no
place to keep files and no logger (nanobot-upstream.md §5.9). This one adds them:

- ``api.config`` — the package's configuration (read-only mapping; ``--config``);
- ``api.data_dir`` — a ``pathlib.Path`` to a private folder (created 0700) that survives
  restarts and reinstalls;
- ``api.logger`` — a ``logging.Logger`` writing to stderr, which the host keeps in the
  package's log file (stdout is the protocol);
- ``api.workspace`` — the workspace folder; ``api.id`` — the package id;
- ``api.trace_context()`` — the W3C trace context of the request being served
  (``{traceparent, tracestate?}``, {} when the gateway does not trace): per request, so
  two calls served at once each read their own (``_trace``).

Registration is only open while ``register`` runs: later calls (from a thread the package
started, say) cannot reach the already-written ``register`` line and are refused in the log.
"""

from __future__ import annotations

import os
import sys
from types import MappingProxyType

from ._channel import log
from ._manifest import PackageInfo
from ._registry import Registry
from ._trace import trace_context

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

__all__ = ["ExtensionApi", "safe_folder_name"]

_LOGGER_ROOT = "gateway.nanobot"


def safe_folder_name(package_id: str) -> str:
    """The package's folder under the data root: the one the gateway's sandbox grants
    (``gateway.sandbox.safe_name``). Package ids are already ``[a-z0-9._-]``, so the
    encoder (and its hashlib, milliseconds of this sidecar's start) loads only for an id
    that needs it: a long one, or anything else, defensively."""
    plain = all(c.isascii() and (c.isalnum() or c in "._-") for c in package_id)
    short = len(package_id) <= 64 and package_id.strip("._") == package_id
    if plain and short and os.name != "nt":  # on Windows "aux" would be a device
        return package_id
    from gateway.base import encode_name

    return encode_name(package_id, ascii_only=True, portable=False)


class ExtensionApi:
    def __init__(
        self,
        package: PackageInfo,
        registry: Registry,
        *,
        config: Mapping[str, Any],
        data_root: str,
        workspace: str,
    ) -> None:
        self._package = package
        self._registry = registry
        self._config = MappingProxyType(dict(config))
        self._data_dir = os.path.join(data_root, safe_folder_name(package.id))
        os.makedirs(self._data_dir, mode=0o700, exist_ok=True)
        os.chmod(self._data_dir, 0o700)
        self._workspace = workspace
        self._open = True
        self._logger: logging.Logger | None = None

    # ------------------------------------------------------------------ nanobot's v1 API

    def register_tool(self, tool: Any) -> None:
        """A nanobot tool object: ``name``, ``description``, ``parameters``, ``execute``."""
        if self._check_open("register_tool"):
            self._registry.add_tool(self._package, tool)

    def register_command(
        self, command: str, handler: Callable[..., Any], prefix: bool = False
    ) -> None:
        """``/command`` exactly, or with ``prefix=True`` everything starting with
        ``/command `` (the handler's ``ctx.args`` is the rest of the text)."""
        if self._check_open("register_command"):
            self._registry.add_command(self._package, command, handler, prefix)

    def register_hook_factory(
        self, factory: Callable[..., Any], *, name: str | None = None
    ) -> None:
        """``factory(turn_context) -> AgentHook | None``, called at the start of each turn.
        ``name`` is the manifest's hook contribution it implements (default: the only one
        declared, else the factory's ``__name__``)."""
        if self._check_open("register_hook_factory"):
            self._registry.add_hook_factory(self._package, factory, name)

    def _check_open(self, method: str) -> bool:
        if not self._open:
            log(f"{self._package.id}: {method} after register() returned; ignored")
        return self._open

    def close(self) -> None:
        self._open = False

    # ------------------------------------------------------------------ gateway additions

    @property
    def id(self) -> str:
        return self._package.id

    @property
    def config(self) -> Mapping[str, Any]:
        return self._config

    @property
    def data_dir(self) -> Path:
        from pathlib import Path  # deferred: pathlib is not needed to reach `register`

        return Path(self._data_dir)

    @property
    def workspace(self) -> Path:
        from pathlib import Path

        return Path(self._workspace)

    def trace_context(self) -> dict[str, str]:
        """The served request's ``{traceparent, tracestate?}`` (a copy), to pass on — an
        HTTP request's headers, a child's ``TRACEPARENT`` / ``TRACESTATE`` — or {} outside
        a request or when the gateway does not trace."""
        return trace_context()

    @property
    def logger(self) -> logging.Logger:
        if self._logger is None:
            self._logger = _package_logger(self._package.id)
        return self._logger


def _package_logger(package_id: str) -> logging.Logger:
    import logging  # deferred: ≈8 ms, and most packages never log

    root = logging.getLogger(_LOGGER_ROOT)
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        root.propagate = False
    return logging.getLogger(f"{_LOGGER_ROOT}.{package_id}")
