"""The escape suite: known bypass families of Node's permission model and of sandboxes in
general, each tried by a real child started through ``spawn_confined``.

Every case runs in four modes (see ``conftest.MODES``):
- **confined** — must be refused with a permission error;
- **allowed** — with the permission that legitimately allows it granted (or, for attacks
  on the gateway process where no permission exists, aimed at a process inside the child's
  own sandbox) it must succeed, so a denial in the confined mode proves the sandbox and
  not a broken fixture;
- **fallback** — a kernel without Landlock: what still holds is recorded per case;
- **unconfined** — a bare ``Popen``, as before the sandbox: which attacks worked then.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from gateway.sandbox import KernelSupport, NetworkAccess, PackageGrants, SandboxPolicy

from ._probe import DENIED
from .conftest import HELD_FD, World, needs_landlock, run_probe

pytestmark = [needs_landlock, pytest.mark.slow(3)]
ROOT = os.geteuid() == 0
MFD_EXEC = 0x10


@dataclass(frozen=True)
class Case:
    name: str
    attack: str
    args: Callable[[World], dict[str, Any]]
    grant: Callable[[World], SandboxPolicy] | None = None
    """The policy with the permission that makes the attempt legitimate."""
    control: bool = False
    """No permission exists (attacks on the gateway process): the allowed mode aims the same
    attempt at a process inside the child's own sandbox."""
    allowed_args: Callable[[World], dict[str, Any]] | None = None
    """Arguments for the allowed mode when the attempt itself can never be allowed (a
    setuid bit): the same call without the forbidden part."""
    fallback_holds: bool = False
    """Still refused on a kernel without Landlock (capabilities, no_new_privs, seccomp,
    a non-dumpable gateway)."""
    unconfined_escapes: bool = True
    """Works with no sandbox at all (as this user)."""
    base: Callable[[World], SandboxPolicy] | None = None
    """The confined policy when it is not the package default (to reach one layer: e.g.
    Unix sockets allowed, so that Landlock's scoping, not seccomp, is what refuses)."""
    tags: tuple[str, ...] = field(default=())

    def confined(self, world: World) -> SandboxPolicy:
        return self.base(world) if self.base is not None else world.policy


def _read(world: World, *more: Any) -> SandboxPolicy:
    return world.policy.allowing(read=more)


def _write(world: World, *more: Any) -> SandboxPolicy:
    return world.policy.allowing(write=more)


def _policy(world: World, **changes: Any) -> SandboxPolicy:
    return dataclasses.replace(world.policy, **changes)


CASES: list[Case] = [
    # The user's secrets and the gateway's state: no rule names them.
    Case("home_secret", "read", lambda w: {"path": str(w.secret)},
         grant=lambda w: _read(w, w.ssh)),
    Case("home_listing", "listdir", lambda w: {"path": str(w.home)},
         grant=lambda w: _read(w, w.home)),
    Case("gateway_store", "read", lambda w: {"path": str(w.gateway_home / "state.sqlite3")},
         grant=lambda w: _read(w, w.gateway_home)),
    Case("gateway_sessions", "listdir", lambda w: {"path": str(w.gateway_home / "sessions")},
         grant=lambda w: _read(w, w.gateway_home / "sessions")),
    Case("gateway_config", "read", lambda w: {"path": str(w.gateway_home / "config" / "other.json")},
         grant=lambda w: _read(w, w.gateway_home / "config")),
    Case("etc_shadow", "read", lambda w: {"path": "/etc/shadow"},
         grant=lambda w: _read(w, "/etc"), unconfined_escapes=ROOT),
    Case("other_package", "read", lambda w: {"path": str(w.other_package / "index.js")},
         grant=lambda w: _read(w, w.other_package)),
    # Links and path tricks: the kernel checks what is opened, not how it was named.
    Case("symlink_to_file", "read", lambda w: {"path": str(w.package / "secret-link")},
         grant=lambda w: _read(w, w.ssh)),
    Case("symlink_to_folder", "read", lambda w: {"path": str(w.package / "ssh-dir" / w.secret.name)},
         grant=lambda w: _read(w, w.ssh)),
    Case("own_symlink", "symlink_then_read",
         lambda w: {"source": str(w.secret), "link": str(w.data / "stolen")},
         grant=lambda w: _read(w, w.ssh)),
    Case("hard_link", "link_then_read",
         lambda w: {"source": str(w.secret), "link": str(w.data / "stolen")},
         grant=lambda w: _write(w, w.ssh)),
    Case("dot_dot", "read",
         lambda w: {"path": f"{w.package}/{os.path.relpath(w.secret, w.package)}"},
         grant=lambda w: _read(w, w.ssh)),
    Case("slashes_and_dots", "read",
         lambda w: {"path": str(w.secret).replace("/.ssh/", "//./.ssh//./")},
         grant=lambda w: _read(w, w.ssh)),
    Case("proc_self_root", "read", lambda w: {"path": f"/proc/self/root{w.secret}"},
         grant=lambda w: _read(w, w.ssh)),
    # Writing where only reading is allowed, through a handle or a mode change.
    Case("reopen_handle_for_write", "reopen_for_write",
         lambda w: {"path": str(w.package / "index.js")},
         grant=lambda w: _write(w, w.package)),
    Case("fchmod_then_write", "fchmod_then_write", lambda w: {"path": str(w.package / "index.js")},
         grant=lambda w: _write(w, w.package), unconfined_escapes=ROOT),
    Case("setuid_bit_on_handle", "fchmod", lambda w: {"path": str(w.data / "tool"), "mode": "4755"},
         allowed_args=lambda w: {"path": str(w.data / "tool"), "mode": "755"},
         fallback_holds=True),
    Case("fchown_to_another_user", "fchown", lambda w: {"path": str(w.data / "tool"), "uid": 4242},
         grant=lambda w: _policy(w, drop_capabilities=False), fallback_holds=True,
         unconfined_escapes=ROOT, tags=("root",)),
    Case("write_package", "create", lambda w: {"path": str(w.package / "new.js")},
         grant=lambda w: _write(w, w.package)),
    Case("write_workspace", "create", lambda w: {"path": str(w.workspace / "new.txt")},
         grant=lambda w: w.with_grants(PackageGrants(workspace_write=True))),
    Case("write_dev_shm", "create",
         lambda w: {"path": str(w.shm), "cleanup": True},
         grant=lambda w: _write(w, "/dev/shm")),
    Case("execute_written_file", "write_then_exec", lambda w: {"path": str(w.data / "run.sh")},
         grant=lambda w: w.policy.allowing(execute=[w.data])),
    Case("execute_written_file_by_descriptor", "fexec_written_file",
         lambda w: {"path": str(w.data / "run.sh")},
         grant=lambda w: w.policy.allowing(execute=[w.data])),
    # The same without a folder: an anonymous file (memfd) has no path a rule could name.
    Case("execute_anonymous_file", "memfd_exec", lambda w: {"via": "proc"},
         grant=lambda w: _policy(w, anonymous_exec=True), fallback_holds=True),
    Case("execute_anonymous_file_by_descriptor", "memfd_exec", lambda w: {"via": "execveat"},
         grant=lambda w: _policy(w, anonymous_exec=True), fallback_holds=True),
    Case("execute_anonymous_file_marked_executable", "memfd_exec",
         lambda w: {"via": "proc", "flags": MFD_EXEC},
         grant=lambda w: _policy(w, anonymous_exec=True), fallback_holds=True),
    # The gateway process: its environment, memory, working folder, open files, signals.
    Case("gateway_environ", "proc_file", lambda w: {"file": "environ"},
         control=True, fallback_holds=True),
    Case("gateway_memory", "proc_file", lambda w: {"file": "mem"},
         control=True, fallback_holds=True),
    Case("gateway_maps", "proc_file", lambda w: {"file": "maps"},
         control=True, fallback_holds=True),
    Case("gateway_cwd", "proc_file", lambda w: {"file": "cwd", "readlink": True},
         control=True, fallback_holds=True),
    Case("gateway_open_file", "proc_file",
         lambda w: {"file": f"fd/{HELD_FD}", "opens": str(w.workspace / "README.md")},
         control=True, fallback_holds=True),
    Case("gateway_root_link", "proc_root", lambda w: {"path": str(w.secret)},
         grant=lambda w: _read(w, w.ssh), control=True, fallback_holds=True),
    Case("signal_gateway", "signal", lambda w: {},
         grant=lambda w: _policy(w, scope_signals=False)),
    # Sockets: Unix (pathname and abstract) and loopback TCP/UDP without `network`.
    Case("unix_socket", "unix_connect", lambda w: {"address": str(w.servers.unix_path)},
         grant=lambda w: _policy(w, unix_sockets=True), fallback_holds=True),
    Case("abstract_socket", "unix_connect", lambda w: {"address": w.servers.abstract},
         grant=lambda w: _policy(w, unix_sockets=True, scope_abstract_unix=False),
         fallback_holds=True),
    Case("abstract_socket_scoped", "unix_connect", lambda w: {"address": w.servers.abstract},
         base=lambda w: _policy(w, unix_sockets=True),
         grant=lambda w: _policy(w, unix_sockets=True, scope_abstract_unix=False)),
    Case("tcp_connect_loopback", "tcp_connect", lambda w: {"port": w.servers.tcp_port},
         grant=lambda w: _policy(w, network=NetworkAccess(connect=frozenset({w.servers.tcp_port}))),
         fallback_holds=True),
    Case("tcp_connect_unlisted_port", "tcp_connect", lambda w: {"port": w.servers.tcp_port},
         base=lambda w: _policy(w, network=NetworkAccess(connect=frozenset({w.servers.udp_port}))),
         grant=lambda w: _policy(w, network=NetworkAccess(connect=frozenset({w.servers.tcp_port})))),
    Case("tcp_bind_loopback", "tcp_bind", lambda w: {},
         grant=lambda w: _policy(w, network=NetworkAccess(bind=True)), fallback_holds=True),
    Case("udp_send_loopback", "udp_send", lambda w: {"port": w.servers.udp_port},
         grant=lambda w: w.with_grants(PackageGrants(network=True)), fallback_holds=True),
    # A shell inherits the sandbox: the same attempts through /bin/sh and bash.
    Case("shell_reads_secret", "shell", lambda w: {"script": f"cat {w.secret}"},
         grant=lambda w: _read(w, w.ssh)),
    Case("shell_reads_gateway_environ", "shell", lambda w: {"script": "cat /proc/{pid}/environ"},
         control=True, fallback_holds=True),
    Case("shell_signals_gateway", "shell", lambda w: {"script": "kill -0 {pid}"},
         grant=lambda w: _policy(w, scope_signals=False)),
    Case("shell_tcp_loopback", "shell",
         lambda w: {"script": f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{w.servers.tcp_port}; head -c 5 <&3'"},
         grant=lambda w: w.with_grants(PackageGrants(network=True)), fallback_holds=True),
    Case("shell_writes_workspace", "shell", lambda w: {"script": f"echo x > {w.workspace}/new.txt"},
         grant=lambda w: w.with_grants(PackageGrants(workspace_write=True))),
]  # fmt: skip

_IDS = [case.name for case in CASES]


def _args(case: Case, world: World, *, control: bool = False) -> dict[str, Any]:
    args = case.args(world)
    if control and case.control:
        args["target"] = "own"
    return args


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_refused_in_the_sandbox(case: Case, world: World) -> None:
    outcome = run_probe(world, case.attack, _args(case, world), policy=case.confined(world))
    assert outcome.code == DENIED, outcome


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_works_with_the_permission_granted(case: Case, world: World) -> None:
    if "root" in case.tags and not ROOT:
        pytest.skip("giving a file to another user needs root, sandbox or not")
    policy = case.grant(world) if case.grant is not None else world.policy
    args = case.allowed_args(world) if case.allowed_args else _args(case, world, control=True)
    outcome = run_probe(world, case.attack, args, policy=policy)
    assert outcome.code == 0, outcome


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_without_landlock_the_fallback_holds_only_where_recorded(case: Case, world: World) -> None:
    no_landlock = KernelSupport(landlock_abi=0, seccomp=True, reason="a test kernel")
    outcome = run_probe(
        world, case.attack, _args(case, world), policy=case.confined(world), support=no_landlock
    )
    assert outcome.code == (DENIED if case.fallback_holds else 0), outcome


@pytest.mark.parametrize("case", CASES, ids=_IDS)
def test_without_the_sandbox_the_attempt_works(case: Case, world: World) -> None:
    """Before this sandbox: a bare Popen from a dumpable gateway. Every case but those
    marked otherwise worked — the table in docs/security.md."""
    outcome = run_probe(world, case.attack, _args(case, world), policy=None, undumpable=False)
    assert outcome.code == (0 if case.unconfined_escapes else DENIED), outcome
