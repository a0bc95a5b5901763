"""The world a probe attacks: a user's home with an SSH key, a gateway home with a store,
sessions, config and another package, the probe's own package, a workspace — and, outside
every sandbox, servers on a Unix socket, an abstract socket and 127.0.0.1 (loopback only).

``run_probe(world, attack, args, …)`` starts the probe through the gateway stand-in and
returns its exit code and output. The stand-ins are forked, one per probe, by a server
started once per test module (``_standin.py --serve``): real processes, since what is
tested is the kernel's checks between a confined child and its parent.
"""

from __future__ import annotations

import dataclasses
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gateway.sandbox import (
    KernelSupport,
    PackageGrants,
    SandboxPolicy,
    detect_support,
    exposed_paths,
    package_sandbox,
    python_runtime_paths,
)

HERE = Path(__file__).resolve().parent
PROBE = HERE / "_probe.py"
STANDIN = HERE / "_standin.py"
HELD_FD = 100
"""The stand-in keeps the SSH key open on this descriptor, as a gateway might hold a
secret file open."""

needs_landlock = pytest.mark.skipif(
    not sys.platform.startswith("linux") or detect_support().landlock_abi < 6,
    reason="needs Linux with Landlock ABI 6 or later",
)


def _runtime_in_tmp() -> bool:
    temp = [Path("/tmp"), Path("/var/tmp")]
    runtime = [Path(__file__).resolve().parents[2], *python_runtime_paths()]
    return any(folder in path.parents for path in runtime for folder in temp)


needs_runtime_outside_tmp = pytest.mark.skipif(
    _runtime_in_tmp(),
    reason="the gateway's own runtime is in /tmp: a private /tmp cannot go over it, so "
    "writes to /tmp are refused instead (docs/security.md, private scratch space)",
)


@dataclass
class Servers:
    unix_path: Path
    abstract: str
    tcp_port: int
    udp_port: int


def _serve(server: socket.socket) -> None:
    while True:
        try:
            connection, _ = server.accept()
        except OSError:
            return  # closed at teardown
        with connection:
            connection.sendall(b"hello from outside")


@pytest.fixture(scope="session")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    outside = tmp_path_factory.mktemp("outside")
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(outside / "agent.sock"))
    abstract_name = f"gateway-escape-test-{uuid.uuid4().hex}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + abstract_name)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    threads = []
    for server in (unix, abstract, tcp):
        server.listen()
        thread = threading.Thread(target=_serve, args=(server,), daemon=True)
        thread.start()
        threads.append(thread)
    try:
        yield Servers(
            outside / "agent.sock", "@" + abstract_name, tcp.getsockname()[1], udp.getsockname()[1]
        )
    finally:
        for server in (unix, abstract, tcp, udp):
            server.shutdown(socket.SHUT_RDWR) if server.type == socket.SOCK_STREAM else None
            server.close()


class StandIns:
    """A stand-in server (``_standin.py --serve``), started at the first probe and again
    after a failure."""

    def __init__(self) -> None:
        self._server: subprocess.Popen[str] | None = None

    def run(self, spec: dict[str, Any]) -> tuple[int, str, str]:
        if self._server is None or self._server.poll() is not None:
            self._server = subprocess.Popen(
                [sys.executable, str(STANDIN), "--serve"],
                env={**os.environ, "GATEWAY_TEST_SECRET": "sk-the-gateway-secret"},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        server = self._server
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(spec) + "\n")
        server.stdin.flush()
        with selectors.DefaultSelector() as selector:
            selector.register(server.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout=60)  # caps a hang, as subprocess.run's timeout did
        line = server.stdout.readline() if ready else ""
        if not line:
            self.close()
            raise AssertionError(f"the stand-in server gave no answer to {spec['argv']}")
        answer = json.loads(line)
        return answer["code"], answer["stdout"], answer["stderr"]

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        assert server.stdin is not None
        server.stdin.close()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stdout is not None:
            server.stdout.close()


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[StandIns]:
    """One server per module, stopped (and reaped) at its end: the CPU of the stand-ins it
    forked counts for the module (``pytest --cpu-by-module``, tests/_cpu.py)."""
    server = StandIns()
    try:
        yield server
    finally:
        server.close()


@dataclass
class World:
    root: Path
    home: Path
    secret: Path
    gateway_home: Path
    package: Path
    other_package: Path
    workspace: Path
    data: Path
    tmp: Path
    servers: Servers
    policy: SandboxPolicy
    environment: dict[str, str]
    shm: Path
    """A name in /dev/shm (shared by every test process: unique, removed at teardown)."""
    stand_ins: StandIns

    @property
    def ssh(self) -> Path:
        return self.secret.parent

    def with_grants(self, grants: PackageGrants) -> SandboxPolicy:
        return _sandbox(self.gateway_home, self.package, self.workspace, grants).policy


def _sandbox(home: Path, package: Path, workspace: Path, grants: PackageGrants) -> Any:
    return package_sandbox(
        home=home,
        package_id="probe",
        package_root=package,
        workspace=workspace,
        grants=grants,
        runtime=python_runtime_paths(),
    )


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def world(tmp_path: Path, servers: Servers, stand_ins: StandIns) -> Iterator[World]:
    home = tmp_path / "home"
    secret = _write(home / ".ssh" / "id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY----- secret\n")
    _write(home / ".npmrc", "//registry.npmjs.org/:_authToken=npm_secret\n")
    gateway_home = home / ".gateway"
    _write(gateway_home / "state.sqlite3", "SQLite format 3\0 the store\n")
    _write(gateway_home / "sessions" / "1789233281025102.jsonl", '{"type": "session"}\n')
    _write(gateway_home / "config" / "other.json", '{"api_key": "sk-secret"}\n')
    other = gateway_home / "packages" / "other-1a2b3c4d" / "v1"
    _write(other / "index.js", "module.exports = 'other package'\n")
    package = gateway_home / "packages" / "probe-5e6f7a8b" / "v1"
    _write(package / "index.js", "module.exports = 'probe package'\n")
    shutil.copy(PROBE, package / "_probe.py")
    (package / "secret-link").symlink_to(secret)
    (package / "ssh-dir").symlink_to(secret.parent, target_is_directory=True)
    workspace = tmp_path / "workspace"
    _write(workspace / "README.md", "the user's project\n")
    sandbox = _sandbox(gateway_home, package, workspace, PackageGrants())
    _write(sandbox.data_dir / "tool", "#!/bin/sh\n")
    protected = [home, secret, gateway_home / "state.sqlite3", gateway_home / "sessions",
                 gateway_home / "config", other, servers.unix_path]  # fmt: skip
    assert exposed_paths(sandbox.policy, protected) == []  # nothing reachable by accident
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    env.update(sandbox.environment)
    shm = Path("/dev/shm") / f"gateway-probe-{uuid.uuid4().hex}"
    yield World(tmp_path, home, secret, gateway_home, package, other, workspace,
                sandbox.data_dir, sandbox.tmp_dir, servers, sandbox.policy, env, shm,
                stand_ins)  # fmt: skip
    shm.unlink(missing_ok=True)


def _policy_data(policy: SandboxPolicy) -> dict[str, Any]:
    def ports(value: bool | frozenset[int]) -> bool | list[int]:
        return value if isinstance(value, bool) else sorted(value)

    return {
        "read": [str(p) for p in policy.read],
        "execute": [str(p) for p in policy.execute],
        "write": [str(p) for p in policy.write],
        "network": {"connect": ports(policy.network.connect), "bind": ports(policy.network.bind)},
        "unix_sockets": policy.unix_sockets,
        "scope_signals": policy.scope_signals,
        "scope_abstract_unix": policy.scope_abstract_unix,
        "drop_capabilities": policy.drop_capabilities,
        "anonymous_exec": policy.anonymous_exec,
    }


MODES = ("confined", "allowed", "fallback", "unconfined")
"""confined: the sandbox as built; allowed: with the case's permission (or, where no
permission exists, aimed at a process inside its own sandbox); fallback: a kernel without
Landlock (capabilities dropped, no_new_privs, seccomp, non-dumpable gateway);
unconfined: a bare Popen from a dumpable parent, the gateway before this sandbox."""


@dataclass(frozen=True)
class Outcome:
    code: int
    output: str

    def __str__(self) -> str:
        return f"exit {self.code}: {self.output.strip()}"


def probe_arguments(args: dict[str, Any]) -> list[str]:
    """The probe's arguments, ``NAME=TYPE:VALUE`` each (``_probe.py``: it parses them
    without ``json``, whose import is most of a probe's start)."""
    encoded = []
    for name, value in args.items():
        if isinstance(value, bool):
            encoded.append(f"{name}=b:{int(value)}")
        elif isinstance(value, int):
            encoded.append(f"{name}=i:{value}")
        else:
            assert isinstance(value, str), (name, value)
            encoded.append(f"{name}=s:{value}")
    return encoded


def run_probe(
    world: World,
    attack: str,
    args: dict[str, Any],
    *,
    policy: SandboxPolicy | None,
    support: KernelSupport | None = None,
    undumpable: bool = True,
    gateway_capabilities: bool = True,
) -> Outcome:
    spec = {
        "argv": [sys.executable, "-I", "-S", str(world.package / "_probe.py"), attack,
                 *probe_arguments(args)],
        "cwd": str(world.workspace),
        "env": world.environment,
        "policy": None if policy is None else _policy_data(policy),
        "support": None if support is None else dataclasses.asdict(support),
        "undumpable": undumpable,
        "without_capabilities": not gateway_capabilities,
        "hold": str(world.secret),
    }  # fmt: skip
    code, stdout, stderr = world.stand_ins.run(spec)
    return Outcome(code, stdout + stderr)


PolicyChange = Callable[[World], SandboxPolicy]
