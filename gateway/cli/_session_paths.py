"""Where a warm session lives, which one a command belongs to, and who may reach it
(docs/session.md).

One session per workspace and everything that decides what a load finds: the ``--trust``
and ``--plan`` flags, the user, the environment the gateway and its children read (PATH,
the allow-listed variables, ``GATEWAY_*``, the runtimes' own), and the gateway's build (its
version; in a checkout, its sources). Its files are under ``GATEWAY_HOME/run`` (a folder
only the user may enter, 0700, checked before every use), named by a digest of all that:
``<key>.sock`` (the socket, 0600), ``<key>.lock`` (held by the live session: a socket
whose lock is free is stale), ``<key>.json`` (what ``gateway session status`` shows) and
``<key>.start`` (one client starts the session at a time). A socket path longer than
``sun_path`` holds is reached through ``/proc/self/fd`` of its open folder.

Imported by every ``list``, ``call`` and ``command``: the standard library only, and the
runtime floor's allow-list (``child_environment``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import stat
import struct
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from gateway.base import GatewayError

__all__ = [
    "DEFAULT_IDLE",
    "SessionPlace",
    "SessionRefused",
    "address",
    "idle_seconds",
    "peer_uid",
    "run_folder",
    "session_key",
    "session_wanted",
]

DEFAULT_IDLE = 600.0
"""Seconds a session waits for its next command before it ends (``GATEWAY_SESSION_IDLE``)."""
_KEY_PREFIXES = ("GATEWAY_", "PI_", "OPENCLAW_", "NODE_", "NPM_CONFIG_", "XDG_", "PYTHON")
_NOT_KEY = ("GATEWAY_SESSION", "GATEWAY_SESSION_IDLE")
"""Variables that say how to reach a session, not what it loads."""
_SUN_PATH = 100
"""Bytes of a socket path safely under ``sun_path`` (108 on Linux, 104 on macOS)."""


class SessionRefused(GatewayError):
    """The session's folder or socket cannot be trusted or used; the command runs alone."""


def session_wanted(environ: Mapping[str, str], interactive: bool) -> bool:
    """``GATEWAY_SESSION``: ``on`` always, ``off`` never; unset, when a terminal shows the
    output (as build daemons advise: a CI job or a script that did not ask keeps one-shot
    runs)."""
    value = environ.get("GATEWAY_SESSION", "").strip().lower()
    if value in ("1", "on", "yes", "true"):
        return True
    if value in ("0", "off", "no", "false"):
        return False
    return interactive


def idle_seconds(environ: Mapping[str, str]) -> float:
    """``GATEWAY_SESSION_IDLE`` (seconds, > 0), else ``DEFAULT_IDLE``."""
    try:
        value = float(environ.get("GATEWAY_SESSION_IDLE", ""))
    except ValueError:
        return DEFAULT_IDLE
    return value if 0 < value < 10**7 else DEFAULT_IDLE


def _build() -> list[str]:
    """The gateway's version; in a checkout, where its sources are and when each last
    changed (an edited gateway is another session)."""
    from gateway.base import gateway_version

    here = Path(__file__).resolve().parents[2]
    build = [gateway_version(), str(here)]
    if not (here / "pyproject.toml").is_file():
        return build
    for folder in ("gateway", "adapters", "sidecars"):
        for path, dirs, files in os.walk(here / folder):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "__pycache__")]
            for name in files:
                if name.endswith((".py", ".mjs", ".json")):
                    with contextlib.suppress(OSError):
                        build.append(f"{name}:{os.stat(os.path.join(path, name)).st_mtime_ns}")
    return build


def session_key(workspace: Path, trust: bool, plan: bool, environ: Mapping[str, str]) -> str:
    """The digest naming the session a command with these inputs belongs to."""
    from gateway.runtime import child_environment

    names = environ.get("GATEWAY_PASSTHROUGH_ENV", "").split(",")
    passed = child_environment([n.strip() for n in names if n.strip()], source=environ)
    own = {
        name: value
        for name, value in environ.items()
        if name.startswith(_KEY_PREFIXES) and name not in _NOT_KEY
    }
    material = {
        "uid": os.getuid(),
        "workspace": str(workspace.resolve()),
        "trust": trust,
        "plan": plan,
        "python": sys.executable,
        "environment": sorted({**passed, **own}.items()),
        "build": _build(),
    }
    return hashlib.sha256(json.dumps(material).encode()).hexdigest()[:32]


def run_folder(home: Path) -> Path:
    """``GATEWAY_HOME/run``: made 0700 if absent; refused unless it is a folder of this
    user's that no one else may enter (a symlink or a wider mode is someone else's)."""
    folder = home / "run"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError as error:
        raise SessionRefused(f"{folder}: {error.strerror or error}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise SessionRefused(f"{folder} is not a folder of this user's")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise SessionRefused(f"{folder} may be entered by others (mode {info.st_mode & 0o777:o})")
    return folder


@dataclass(frozen=True, slots=True)
class SessionPlace:
    """The files of one session."""

    folder: Path
    key: str

    @property
    def socket(self) -> Path:
        return self.folder / f"{self.key}.sock"

    @property
    def lock(self) -> Path:
        return self.folder / f"{self.key}.lock"

    @property
    def info(self) -> Path:
        return self.folder / f"{self.key}.json"

    @property
    def start(self) -> Path:
        return self.folder / f"{self.key}.start"


@contextlib.contextmanager
def address(path: Path) -> Iterator[str]:
    """An address for ``bind``/``connect`` of ``path``: itself, or when too long for
    ``sun_path``, the same file through ``/proc/self/fd`` of its open folder."""
    if len(os.fsencode(path)) <= _SUN_PATH:
        yield str(path)
        return
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{folder}/{path.name}"
    finally:
        os.close(folder)


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end (``SO_PEERCRED``); None where the
    system does not say (the session is then not used)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    credentials = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return int(uid)
