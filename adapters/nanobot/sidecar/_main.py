"""The sidecar's life: read ``initialize``, load the packages, write ``register``, serve.

Everything up to the ``register`` line runs without an event loop: ``asyncio`` costs about
as much to import as the whole rest of the start (it pulls in ssl, logging, inspect), so it
is imported only after ``register`` is written, while the host is busy with it.
"""

from __future__ import annotations

import os
import sys

from gateway.wire.features import REGISTER_DIAGNOSTICS, TRACE_CONTEXT

from ._channel import log, take_stdio
from ._diagnostics import Report
from ._loader import load_packages

__all__ = ["main"]


USAGE = """usage: python -m adapters.nanobot.sidecar --package ROOT [--package ROOT ...]
                                        --data-dir DIR [--config-file ID=PATH ...]

Host nanobot python packages as one nimlet-protocol extension process.

  --package ROOT         a package root holding nanobot.extension.json; repeat for more
  --data-dir DIR         each package gets DIR/<package id>, created 0700
  --config-file ID=PATH  the configuration of package ID: a file holding one JSON object
                         (a file, never the JSON itself: a command line is visible to
                         every process on the machine, and configuration holds API keys)
"""


class Options:
    __slots__ = ("config_files", "data_dir", "packages")

    def __init__(self) -> None:
        self.packages: list[str] = []
        self.data_dir = ""
        self.config_files: list[tuple[str, str]] = []


def parse_args(argv: list[str]) -> Options:
    """Three options; argparse (with gettext) would cost ≈4 ms of the start budget."""
    options = Options()
    rest = list(argv)
    while rest:
        flag, _, value = rest.pop(0).partition("=")
        if flag in ("-h", "--help"):
            sys.stdout.write(USAGE)
            raise SystemExit(0)
        if flag not in ("--package", "--data-dir", "--config-file"):
            _usage(f"unknown argument {flag!r}")
        if not value:
            if not rest:
                _usage(f"{flag} needs a value")
            value = rest.pop(0)
        if flag == "--package":
            options.packages.append(value)
        elif flag == "--data-dir":
            options.data_dir = value
        else:
            package, separator, path = value.partition("=")
            if not separator or not package or not path:
                _usage(f"--config-file needs ID=PATH, not {value!r}")
            options.config_files.append((package, path))
    if not options.packages or not options.data_dir:
        _usage("--package and --data-dir are required")
    return options


def _usage(problem: str) -> None:
    sys.stderr.write(f"{USAGE}\nerror: {problem}\n")
    raise SystemExit(2)


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
        # `python -m` put the working directory (the workspace) first on sys.path, where
        # its files would shadow modules; packages are imported from their own roots.
        del sys.path[0]
    data_dir = os.path.abspath(options.data_dir)
    os.makedirs(data_dir, mode=0o700, exist_ok=True)
    # Installed package trees are hashed for trust: writing __pycache__ into one would
    # revoke it. (A pycache_prefix would also move the standard library's bytecode.)
    sys.dont_write_bytecode = True
    channel = take_stdio()
    initialize = channel.read_message()
    if initialize is None or initialize.get("type") == "shutdown":
        return 0
    if initialize.get("type") != "initialize":
        log(f"expected initialize first, got {initialize.get('type')!r}; going on")
    gateway = initialize.get("gateway")
    features = gateway.get("features") if isinstance(gateway, dict) else None
    offered = features if isinstance(features, list) else []
    negotiated = REGISTER_DIAGNOSTICS in offered
    report = Report(prefix_packages=len(options.packages) > 1)
    registry = load_packages(
        options.packages,
        data_dir=data_dir,
        config_files=options.config_files,
        workspace=str(initialize.get("workspace") or os.getcwd()),
        session_id=str(initialize.get("session_id") or ""),
        report=report,
    )
    channel.send(registry.register_message(report.items if negotiated else None))

    from ._server import serve

    return serve(channel, registry, traced=TRACE_CONTEXT in offered)
