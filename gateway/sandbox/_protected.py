"""Paths inside a writable workspace that stay read-only: what other programs execute or
trust without asking (git's hooks and config, editors' tasks, CI definitions, the agents'
own settings and instructions, direnv, build scripts).

A package granted ``workspace.write`` may write the workspace, but a hook written into
``.git/hooks`` runs as the user at the next commit, outside every sandbox; a rewritten
``AGENTS.md`` instructs every later agent. So these stay read-only unless the user grants
one by name: ``workspace.write:.git/hooks`` reopens that folder (and what is beneath it)
and nothing else. Coding agents' own sandboxes do the same for ``.git`` under their
workspace-write modes.

Landlock cannot take a subfolder back from a writable folder (its rules only add), so a
private mount namespace (``_namespaces``) binds each protected path read-only over itself
before Landlock is entered (it forbids mount changes after); a reopened path is bound
again, writable, on top.
With ``CAP_SYS_ADMIN`` (root, a container's root) the confining thread makes the namespace
and the child inherits it. Without it a user namespace is needed, which a multi-threaded
process cannot make: the child then starts as the single-threaded trampoline
(``_trampoline``), which makes both namespaces, binds the paths, enters the same Landlock
domain and seccomp filter, and execs the program. Where neither is possible (user
namespaces disabled) the paths are not protected and ``missing_protections`` says so. Only
paths that exist when the child starts are bound: a protected file that does not exist yet
(``.envrc`` in a folder without one) can be created.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Final

__all__ = [
    "PROTECTED_GRANT_PREFIX",
    "PROTECTED_NAMES",
    "can_mount_privately",
    "protected_within",
    "reopened_names",
    "user_namespaces_allowed",
]

PROTECTED_GRANT_PREFIX: Final = "workspace.write:"
"""``workspace.write:PATH`` reopens one protected path (relative to the workspace)."""

PROTECTED_NAMES: Final[dict[str, str]] = {
    ".git": "git's hooks run at each commit; its config names programs (core.hooksPath, "
    "core.fsmonitor, core.pager)",
    ".hg": "Mercurial's hooks and config",
    ".svn": "Subversion's working-copy data",
    ".jj": "Jujutsu's repository and config",
    ".envrc": "direnv runs it on entering the folder",
    ".vscode": "VS Code tasks and settings run programs",
    ".idea": "JetBrains run configurations",
    ".zed": "Zed tasks and settings",
    ".devcontainer": "dev container definitions run at build",
    ".github": "CI workflows run with the repository's secrets",
    ".gitlab-ci.yml": "CI pipeline",
    ".circleci": "CI pipeline",
    ".husky": "git hooks managed by husky",
    ".pre-commit-config.yaml": "hooks run at each commit",
    ".npmrc": "npm settings (script-shell, registry) read by every npm run",
    ".claude": "Claude Code settings, hooks and commands",
    ".codex": "Codex settings",
    ".cursor": "Cursor rules and settings",
    ".gemini": "Gemini CLI settings",
    ".pi": "Pi extensions and settings, loaded on the next start",
    ".nimlet": "nimlet extensions and settings",
    ".agents": "agents' shared extensions and skills",
    ".openclaw": "OpenClaw extensions",
    ".mcp.json": "MCP servers an agent starts",
    "AGENTS.md": "instructions every agent reads",
    "CLAUDE.md": "instructions Claude Code reads",
    "GEMINI.md": "instructions Gemini CLI reads",
    "Makefile": "build script",
    "justfile": "build script",
    "package.json": "its scripts (postinstall, test, …) run at the user's next npm install or "
    "npm test",
}
"""Each path, relative to the workspace, and why it stays read-only (docs/security.md)."""

_CAP_SYS_ADMIN = 21


def reopened_names(granted: Iterable[str]) -> frozenset[str]:
    """The protected paths the user reopened (``workspace.write:PATH``), normalised; a path
    that is absolute, climbs out (``..``) or is empty reopens nothing."""
    found = set()
    for name in granted:
        if not name.startswith(PROTECTED_GRANT_PREFIX):
            continue
        raw = name[len(PROTECTED_GRANT_PREFIX) :].strip().rstrip("/")
        path = PurePosixPath(raw)
        if not raw or path.is_absolute() or ".." in path.parts or "\0" in raw:
            continue
        found.add(str(path))
    return frozenset(found)


def protected_within(
    workspace: Path, reopened: frozenset[str] = frozenset(), own: Path | None = None
) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(what to bind read-only, what to bind writable again on top) for a writable
    ``workspace``: the protected paths that exist (not reopened themselves), and the
    reopened paths beneath them that exist. ``own``: the package's own folder, when the
    workspace holds it (a nimlet extension in ``.nimlet/extensions/NAME`` keeps its state
    beside its script): it stays writable, its neighbours do not. A symlink is never bound
    (its target may be anywhere); Landlock's rules decide what it reaches."""
    read_only = []
    for name in PROTECTED_NAMES:
        if name in reopened:
            continue
        path = workspace / name
        if path.exists() and not path.is_symlink():
            read_only.append(path)
    again = []
    names = sorted(reopened)
    if own is not None and own.is_relative_to(workspace):  # installed ones live elsewhere
        names.append(str(own.relative_to(workspace)))
    for name in dict.fromkeys(names):
        path = workspace / name
        beneath = any(path != ro and ro in path.parents for ro in read_only)
        real = os.path.realpath(path)
        inside = real == os.path.realpath(workspace) or real.startswith(
            os.path.realpath(workspace) + os.sep
        )
        if beneath and inside and path.exists() and not path.is_symlink():
            again.append(path)
    return tuple(read_only), tuple(again)


@functools.cache
def can_mount_privately() -> bool:
    """Whether the gateway may make a mount namespace (``CAP_SYS_ADMIN`` effective)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_ADMIN & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


@functools.cache
def user_namespaces_allowed() -> bool:
    """Whether an unprivileged process may make a user namespace here (the sysctls that
    turn it off: ``user.max_user_namespaces`` 0, Debian's
    ``kernel.unprivileged_userns_clone`` 0, Ubuntu's AppArmor restriction)."""
    checks = (
        ("/proc/sys/user/max_user_namespaces", lambda v: int(v) > 0),
        ("/proc/sys/kernel/unprivileged_userns_clone", lambda v: v != "0"),
        ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", lambda v: v != "1"),
    )
    for path, allows in checks:
        try:
            value = Path(path).read_text().strip()
        except OSError:
            continue  # not this kernel's knob
        try:
            if not allows(value):
                return False
        except ValueError:
            return False
    return Path("/proc/self/ns/user").exists()
