"""``gateway logs ID [-f] [-n N]``: what an installed package's (or a discovered
extension's) processes wrote to stderr, from the logs under ``GATEWAY_HOME/logs``
(``--server``, the audit log of ``serve --http``: ``_logs_server``).

A log is the package's own text: it reaches the terminal through the printable stream
(``gateway.cli._main``), its escape sequences shown, never acted on. ``-f`` polls the files
every ``FOLLOW_INTERVAL`` seconds, reading at most ``_CHUNK`` bytes of each per poll, and
follows a log across its rotation; Ctrl-C ends it (exit 0)."""

from __future__ import annotations

import argparse
import codecs
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli._refusal import refuse_unknown
from gateway.store import STATE_FILE, StateStore, UnknownPackage
from gateway.wire import calls_log, runtime_log

__all__ = ["FOLLOW_INTERVAL", "package_logs", "run_logs"]

FOLLOW_INTERVAL = 0.5
"""Seconds between two looks at a followed log."""
_CHUNK = 1 << 20
"""At most this much of one log is read at once (the tail shown, one poll of ``-f``)."""
_DISCOVERED = re.compile(r"^(pi|openclaw):.+")


def package_logs(config: GatewayConfig, package_id: str) -> list[Path]:
    """The logs ``package_id``'s processes write, whether they exist yet or not: its runtime's
    (or its group's shared process's) and its per-call tools'. ``UnknownPackage`` when no
    installed package or discovered extension (``pi:NAME``) has the id."""
    logs = config.logs_dir
    installed = None
    if (config.home / STATE_FILE).exists():
        with StateStore.open(config.home) as store:
            try:
                installed = store.get_package(package_id)
            except UnknownPackage:
                installed = None
    if installed is None:
        if _DISCOVERED.match(package_id):
            return [runtime_log(logs, "discovered", package_id)]
        raise UnknownPackage(package_id)
    folder = installed.record.path.parent.name
    paths = [runtime_log(logs, "package", package_id, folder)]
    if installed.process_group:
        paths.append(runtime_log(logs, "shared", installed.process_group))
    return [*paths, calls_log(logs, package_id)]


def run_logs(args: argparse.Namespace, config: GatewayConfig) -> int:
    try:
        paths = package_logs(config, args.id)
    except UnknownPackage:
        return refuse_unknown(args, [args.id], given=1)
    existing = [path for path in paths if path.is_file()]
    if not existing:
        print(f"gateway: {args.id} has logged nothing yet (its log: {paths[0]})", file=sys.stderr)
    tails = {path: _Tail(path) for path in (paths if args.follow else existing)}
    several = len(existing) > 1
    for path in existing:
        if several:
            print(f"==> {path} <==")
        _write(tails[path].last_lines(args.lines))
    sys.stdout.flush()
    if not args.follow:
        return 0
    try:
        _follow(list(tails.values()), several)
    except KeyboardInterrupt:
        sys.stdout.flush()
    return 0


def _follow(tails: list[_Tail], named: bool) -> None:
    shown: _Tail | None = None
    while True:
        for tail in tails:
            text = tail.read_new()
            if not text:
                continue
            if named and shown is not tail:
                print(f"\n==> {tail.path} <==")
                shown = tail
            _write(text)
            sys.stdout.flush()
        time.sleep(FOLLOW_INTERVAL)


def _write(text: str) -> None:
    sys.stdout.write(text if not text or text.endswith("\n") else text + "\n")


@dataclass
class _Tail:
    """One log: where reading stopped, and which file that was (rotation makes a new one)."""

    path: Path
    offset: int = 0
    identity: tuple[int, int] | None = None
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    def last_lines(self, count: int) -> str:
        """The last ``count`` lines (from the last ``_CHUNK`` bytes); reading goes on from
        the end."""
        data = self._read(tail=True)
        if count == 0:
            return ""
        lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
        return "".join(lines[-count:])

    def read_new(self) -> str:
        """What was written since the last read; a rotated or truncated log is read anew."""
        return self.decoder.decode(self._read(tail=False))

    def _read(self, *, tail: bool) -> bytes:
        try:
            # The logs folder is the gateway's own; a link there is followed by no one.
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return b""
        with os.fdopen(fd, "rb") as file:
            status = os.fstat(fd)
            identity = (status.st_dev, status.st_ino)
            if identity != self.identity or status.st_size < self.offset:
                self.identity, self.offset = identity, 0
                self.decoder.reset()
            if tail:
                self.offset = max(self.offset, status.st_size - _CHUNK)
            file.seek(self.offset)
            data = file.read(_CHUNK)
            self.offset += len(data)
        if tail and self.offset > len(data):  # started mid-file: drop the cut first line
            data = data.partition(b"\n")[2]
        return data
