"""Whether what a load read has changed since: for a gateway kept open across runs (the
CLI's warm session), which must never serve a state another command has changed.

A load reads, besides the workspace path and the configuration it was opened with: the
state store (installed packages, trust, grants, enabled, groups, workspace trust, adopted
policies), the packages' settings and secrets, what discovery finds in the workspace's and
the user's roots and in the adapters' discovery folders (and those extensions' own files),
and where the programs that packages' configurations name resolve on PATH. ``LoadInputs``
is a digest of all of it, taken after a load and compared before each use; cheap enough to
take every time (a stat and one pragma on a store no one has committed to since — the
tables read again otherwise, ``StateDigestReader`` —, a stat of each discovered file, a
PATH lookup per named program), so nothing is cached past a change and nothing polls. The
comparison before a command is one trip to a worker thread.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TypeVar

import anyio

from gateway.base import command_identity
from gateway.host._state import GatewayState
from gateway.model import LaunchSpec, discover
from gateway.packages import NoAdapters, load_adapters
from gateway.packages.secrets import secrets_dir
from gateway.store import StateDigestReader

__all__ = ["InputsWatch", "load_inputs", "program_inputs"]

T = TypeVar("T")

_SKIPPED = frozenset({"node_modules", ".git", "__pycache__"})
_WALK_LIMIT = 5000
"""Entries looked at under one discovered folder; past it, the rest are not compared (a
folder that large is a dependency tree, which its manifest's change announces)."""


def _tree(digest: hashlib._Hash, root: Path) -> None:
    """Each file under ``root`` (itself when a file), and each folder: name, size, mtime.
    An absent folder and an empty one read the same (the settings folders are made when
    a gateway starts)."""
    seen = 0
    if not os.path.isdir(root):
        try:
            info = os.stat(root)
        except OSError:
            return
        digest.update(f"{root}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED)
        for name in [*dirs, *sorted(files)]:
            seen += 1
            if seen > _WALK_LIMIT:
                return
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            size = info.st_size if name in files else 0  # a folder's mtime moves with its files
            digest.update(f"{path}\0{size}\0{info.st_mtime_ns}\n".encode())


def _discovered(state: GatewayState) -> Iterable[Path | str]:
    """Every folder and file discovery finds now (discovered extensions, tools, skills,
    prompts; what the adapters find in their folders, by name)."""
    workspace, user_home = state.workspace, state.config.user_home
    found = discover(workspace, user_home, state.trusted)
    yield from (extension.folder for extension in found.extensions)
    yield from (tool.folder for tool in found.tools)
    yield from (skill.path for skill in found.skills)
    yield from (prompt.path for prompt in found.prompts)
    try:
        adapters = load_adapters()
    except NoAdapters:
        return
    for launch in adapters.discover(workspace, user_home, state.trusted, state.config.home):
        yield f"{launch.name} {launch.origin}"
        yield launch.origin


def load_inputs(state: GatewayState, store: StateDigestReader) -> str:
    """A digest of what a load of ``state``'s gateway reads from files and the store (see
    the module; ``store``: its digest, kept open); taken before the load, so a change
    while it runs is a change."""
    home = state.config.home
    digest = hashlib.sha256()
    digest.update(f"store {store.read()}\n".encode())
    for folder in (home / "config", secrets_dir(home)):
        _tree(digest, folder)
    if state.config.packages is None:  # else nothing discovered is loaded
        for found in _discovered(state):
            if isinstance(found, str):
                digest.update(f"{found}\n".encode())
            else:
                _tree(digest, found)
    return digest.hexdigest()


def program_inputs(state: GatewayState) -> str:
    """A digest of where the programs the loaded packages name resolve now (taken after
    the load: which packages are active is what it found)."""
    digest = hashlib.sha256()
    for status in state.packages:
        spec = status.runtime
        # Ready, not active: a package whose start failed for want of a program is
        # exactly the one to watch.
        if status.ready and isinstance(spec, LaunchSpec):
            for program in spec.programs:
                digest.update(f"{status.id}\0{command_identity(program)}\n".encode())
    return digest.hexdigest()


class InputsWatch:
    """What the last load read, when ``GatewayConfig.watch_inputs`` asks for it."""

    def __init__(self, state: GatewayState, catch_up: Callable[[], Awaitable[None]]) -> None:
        self._state = state
        self._catch_up = catch_up
        """The settings watcher's: changes it applies by a restart are not news here."""
        self._seen: tuple[str, str] | None = None
        self._store = StateDigestReader(state.config.home)

    def close(self) -> None:
        """Let go of the store (its connection); a later comparison opens it again."""
        self._store.close()

    async def around(self, load: Callable[[], Awaitable[T]]) -> T:
        """Run ``load`` (a load, or one package restarted with its new settings), remembering
        what it read: a package the settings watcher restarted is not loaded again."""
        if not self._state.config.watch_inputs:
            return await load()
        before = await anyio.to_thread.run_sync(load_inputs, self._state, self._store)
        done = await load()
        self._seen = (before, await anyio.to_thread.run_sync(program_inputs, self._state))
        return done

    async def changed(self) -> bool:
        if self._seen is None:
            return False
        await self._catch_up()
        return await anyio.to_thread.run_sync(self._differs, self._seen)

    def _differs(self, seen: tuple[str, str]) -> bool:
        if load_inputs(self._state, self._store) != seen[0]:
            return True
        return program_inputs(self._state) != seen[1]
