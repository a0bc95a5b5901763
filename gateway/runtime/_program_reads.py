"""What a confined process must read to run a program a package names: the one answer for
every adapter that plans a launch around programs a package names (an Agent Plugin's MCP
server commands, a Claude Code plugin's hook commands and servers, a nimlet manifest's
command).

The program, after a script's ``#!`` line and ``env``, and the installation it belongs to
(the folder above its ``bin``: a venv, a pyenv version, ``/usr/local``, Node's). Two guards:

- **Named paths are hostile.** A bare name is looked up on the user's own ``PATH``, which
  the package does not control; a path the package names counts only inside its own folder,
  outside every guarded folder (the user's home, ``GATEWAY_HOME``), or in a Python venv's
  ``bin`` (the venv then, nothing beside it) — naming ``~/.ssh/id_ed25519`` opens nothing.
  The ``#!`` line of a script the package ships is named by the package too.
- **Toolchains keep their credentials.** An installation in the user's home is granted
  without the files that hold a toolchain's credentials (``CREDENTIAL_FILES``: a ``cargo``
  found in ``~/.cargo/bin`` reads ``~/.cargo`` but not ``~/.cargo/credentials.toml``);
  Landlock cannot take a file back from a folder, so such a folder is granted entry by
  entry around them. A folder many tools share (the home, ``~/.local``, ``~/.config``) is
  never granted whole: only the program's own folder.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from gateway.sandbox import node_runtime_paths, python_runtime_paths

__all__ = ["CREDENTIAL_FILES", "program_reads", "shebang"]

CREDENTIAL_FILES: Final = (
    ".ssh", ".gnupg", ".netrc", ".git-credentials", ".config/git/credentials",
    ".npmrc", ".yarnrc", ".yarnrc.yml", ".config/configstore", ".bunfig.toml",
    ".pypirc", ".config/pip/pip.conf", ".pip/pip.conf", ".config/uv/uv.toml",
    ".local/share/uv/credentials", ".cargo/credentials", ".cargo/credentials.toml",
    ".docker/config.json", ".aws", ".azure", ".config/gcloud", ".kube", ".config/gh",
    ".config/hub", ".gem/credentials", ".m2/settings.xml", ".m2/settings-security.xml",
    ".gradle/gradle.properties", ".terraform.d/credentials.tfrc.json", ".pgpass", ".my.cnf",
    ".vault-token", ".password-store", ".local/share/keyrings", ".config/rclone", ".s3cfg",
    ".boto", ".config/op", ".claude/.credentials.json", ".codex/auth.json",
    ".gemini/oauth_creds.json",
)  # fmt: skip
"""Relative to the user's home: what no runtime read ever grants."""

_CREDENTIAL_NAMES: Final = (
    "credentials", "credentials.toml", "credentials.json", ".credentials.json", "auth.json",
    ".npmrc", "etc/npmrc", ".netrc", ".pypirc", ".git-credentials",
)  # fmt: skip
"""Relative to any installation in the home: where toolchains keep tokens (nvm's Node keeps
its global npm settings, an auth token among them, in ``etc/npmrc``)."""

_SHARED: Final = ("", ".local", ".local/share", ".config", ".cache")
"""Folders of the home many tools share: a program there opens its own folder only."""
_BIN_NAMES: Final = ("bin", "shims", "Scripts", "sbin")
_SHEBANG_BYTES: Final = 256
_MAX_SPLIT: Final = 512
"""Entries granted one by one around a credential file, at most (then: none of them)."""


def _beneath(path: Path, folder: Path) -> bool:
    inside, outside = str(path), str(folder)
    if inside[:1] == outside[:1] == "/" and "//" not in (inside[:2], outside[:2]):
        # The same answer as ``folder in path.parents`` for absolute paths under ``/``
        # (both normalised by Path), as text: a plugin host's plan asks it thousands of
        # times. (POSIX keeps a leading ``//`` a root of its own: Path decides those.)
        return inside == outside or inside.startswith(outside.rstrip("/") + "/")
    return path == folder or folder in path.parents


def _real(path: Path | str) -> Path:
    return Path(os.path.realpath(path))


def shebang(path: Path) -> list[str]:
    """The interpreter a script names on its ``#!`` line (``env``'s program after it, with
    ``env`` itself), or nothing."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SHEBANG_BYTES)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if len(words) >= 2 and Path(words[0]).name == "env":
        return [words[0], *[w for w in words[1:] if not w.startswith("-") and "=" not in w][:1]]
    return words[:1]


class _Reads:
    """One computation: the user's home, the guarded folders, the package's own folder."""

    def __init__(self, home: Path, guarded: Sequence[Path], own: Path | None) -> None:
        self.home = _real(home)
        self.guarded = [_real(p) for p in (home, *guarded)]
        self.own = _real(own) if own is not None else None
        self.secrets = [self.home / name for name in CREDENTIAL_FILES]
        self.found: list[Path] = []
        self._secrets_seen: list[Path] | None = None

    def in_guarded(self, path: Path) -> bool:
        return any(_beneath(path, g) for g in self.guarded)

    def holds_guarded(self, path: Path) -> bool:
        return any(_beneath(g, path) for g in self.guarded)

    def venv_of(self, executable: Path) -> Path | None:
        """The venv whose ``bin`` holds ``executable`` (its ``pyvenv.cfg`` is there)."""
        root = executable.parent.parent
        return (
            root
            if executable.parent.name in _BIN_NAMES and (root / "pyvenv.cfg").is_file()
            else None
        )

    def named_allowed(self, path: Path) -> bool:
        """A path the package named: inside its own folder, outside the guarded folders, or
        in a venv's ``bin`` — and never a folder that holds a guarded one."""
        real = _real(path)
        if self.holds_guarded(real):
            return False
        if self.own is not None and _beneath(real, self.own):
            return True
        if not self.in_guarded(real) and not self.in_guarded(path.absolute()):
            return True
        return self.venv_of(path.absolute()) is not None

    def grant(self, path: Path) -> None:
        """``path`` (a file or an installation), around the credentials it holds."""
        real = _real(path)
        if self.holds_guarded(real) or any(_beneath(real, s) for s in self._secrets_real()):
            return
        if not self.in_guarded(real):
            self.found.append(path)
            return
        inside = [s for s in self._secrets_real() if s != real and real in s.parents]
        inside += [
            _real(real / name)
            for name in _CREDENTIAL_NAMES
            if os.path.lexists(real / name) and real.is_dir()
        ]
        self.found += _around(real, [s for s in inside if os.path.lexists(s)], self.home)

    def _secrets_real(self) -> list[Path]:
        """The credential files, as they are and resolved: looked up once per computation."""
        if self._secrets_seen is None:
            found = [_real(s) for s in self.secrets if os.path.lexists(s)]
            self._secrets_seen = found + self.secrets
        return self._secrets_seen

    def installation(self, executable: Path) -> None:
        """The executable's installation: the folder above its ``bin`` — only the program's
        own folder when that is a shared one (``~/.local``) or holds a guarded one."""
        parent = executable.parent
        root = parent.parent if parent.name in _BIN_NAMES else parent
        shared = {self.home / name if name else self.home for name in _SHARED}
        if _real(root) in shared or root in shared or self.holds_guarded(_real(root)):
            self.grant(parent)
            if _real(root) == self.home / ".local":  # a `pip install --user` script's site
                self.grant(root / "lib")
        else:
            self.grant(root)

    def program(self, program: str, path_env: str | None, trusted: bool, depth: int = 0) -> None:
        """``program`` (a bare name, or a path ``trusted`` or not) and what it runs."""
        if "/" in program:
            plain = Path(program) if os.path.isabs(program) else (self.own or Path.cwd()) / program
            if not os.path.exists(plain) or not (trusted or self.named_allowed(plain)):
                return
        else:
            located = shutil.which(program, path=path_env)
            if located is None:
                return
            plain, trusted = Path(located).absolute(), True
        real = _real(plain)
        self.grant(plain)
        self.grant(real)
        venv = self.venv_of(plain) or self.venv_of(real)
        if venv is not None:
            self.grant(venv)
        elif not (self.own is not None and _beneath(real, self.own)):
            self.installation(plain)
            if real != plain:
                self.installation(real)
        if real == _real(sys.executable):
            self.found += python_runtime_paths()  # the gateway's own: its venv's packages too
        elif real.name.startswith("python"):
            self.installation(real)
        if real.name.startswith(("node", "bun", "deno")) or plain.name in ("node", "npm", "npx"):
            for root in node_runtime_paths(str(plain)):
                self.grant(root)
        if depth < 2 and real.is_file():
            for word in shebang(real):
                self.program(word, path_env, trusted and not self._own(real), depth + 1)

    def _own(self, path: Path) -> bool:
        return self.own is not None and _beneath(path, self.own)


def _around(folder: Path, secrets: list[Path], home: Path) -> list[Path]:
    """``folder``'s entries but the ``secrets`` beneath it, recursing only into the folders
    that hold one. An entry that is a symlink counts by its target."""
    if not secrets:
        return [folder]
    kept: list[Path] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    if len(entries) > _MAX_SPLIT:
        return []
    for entry in entries:
        real = _real(entry)
        holding = [s for s in secrets if _beneath(s, real) or _beneath(s, entry)]
        if any(_beneath(real, s) for s in secrets):
            continue  # a secret, or beneath one
        if entry.is_symlink() and _beneath(real, home) and not _beneath(real, folder):
            continue  # elsewhere in the home: not this installation's to grant
        if not holding:
            kept.append(entry)
        elif entry.is_dir() and not entry.is_symlink():
            kept += _around(entry, holding, home)
    return kept


def program_reads(
    programs: Iterable[str],
    *,
    path_env: str | None,
    home: Path,
    guarded: Sequence[Path] = (),
    own: Path | None = None,
) -> tuple[Path, ...]:
    """What running each of ``programs`` needs to read and execute (paths that exist).

    ``path_env``: the user's ``PATH`` for bare names; ``home``: the user's home (where the
    credential files are); ``guarded``: more folders a named path may not reach
    (``GATEWAY_HOME``); ``own``: the package's folder (a path inside it counts, and its
    scripts' ``#!`` lines are the package's word, not the user's)."""
    reads = _Reads(home, guarded, own)
    for program in dict.fromkeys(programs):
        if program:
            reads.program(program, path_env, trusted=False)
    return tuple(p for p in dict.fromkeys(reads.found) if os.path.lexists(p))
