"""Protected names stay protected at any depth, whether they exist yet or not: a package
granted ``workspace.write`` cannot make, change, move, link or remove ``.git``, ``.envrc``,
``package.json``… anywhere in the workspace, while what else it writes lands (each test has
its control). The supervisor makes every such call for the child (``_guard``)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gateway.base import Diagnostic
from gateway.sandbox import (
    KernelSupport,
    ResourceLimits,
    _spawn,
    detect_support,
    grants_from,
    missing_protections,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)

from .conftest import needs_landlock

needs_guard = pytest.mark.skipif(
    not detect_support().user_notify, reason="needs seccomp user notification (Linux 5.19)"
)
pytestmark = [needs_landlock, needs_guard]

ACTOR = r"""
import ctypes, json, os, sys, threading
results = {}
def attempt(label, action):
    try:
        action()
        results[label] = "ok"
    except OSError as error:
        results[label] = errno_name(error.errno)
def errno_name(number):
    import errno
    return errno.errorcode.get(number, str(number))
def write(path, text="x"):
    with open(path, "w") as handle:
        handle.write(text)
for label, code in json.loads(sys.argv[1]):
    attempt(label, lambda: exec(code))
print(json.dumps(results))
"""


def _run(
    tmp_path: Path,
    workspace: Path,
    steps: list[tuple[str, str]],
    granted: tuple[str, ...] = ("workspace.write",),
    reports: list[Diagnostic] | None = None,
) -> dict[str, str]:
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="actor", package_root=None, workspace=workspace,
        grants=grants_from(list(granted)), runtime=python_runtime_paths(),
    )  # fmt: skip
    env = {**os.environ, **sandbox.environment}
    child = spawn_confined(
        [sys.executable, "-c", ACTOR, json.dumps(steps)], policy=sandbox.policy, cwd=workspace,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        on_denied=reports.append if reports is not None else None,
    )  # fmt: skip
    out, err = child.communicate(timeout=60)
    assert child.returncode == 0, err.decode()
    return json.loads(out)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    (root / "sub").mkdir(parents=True)
    (root / "vendored" / ".git").mkdir(parents=True)
    (root / "vendored" / ".git" / "config").write_text("[core]\n")
    return root


def test_absent_protected_names_cannot_be_made_at_the_top_or_in_a_subfolder(
    tmp_path: Path, workspace: Path
) -> None:
    done = _run(tmp_path, workspace, [
        ("mkdir .git", "os.mkdir('.git')"),
        ("mkdir sub/.git", "os.mkdir('sub/.git')"),
        ("write sub/.envrc", "write('sub/.envrc')"),
        ("write deep package.json", "os.makedirs('a/b'); write('a/b/package.json')"),
        ("control file", "write('sub/notes.txt')"),
        ("control folder", "os.mkdir('sub/src')"),
    ])  # fmt: skip
    assert done == {
        "mkdir .git": "EROFS", "mkdir sub/.git": "EROFS", "write sub/.envrc": "EROFS",
        "write deep package.json": "EROFS", "control file": "ok", "control folder": "ok",
    }  # fmt: skip
    assert not (workspace / ".git").exists() and not (workspace / "sub" / ".envrc").exists()
    assert (workspace / "sub" / "notes.txt").read_text() == "x"


def test_an_existing_protected_path_below_the_top_cannot_be_written_but_can_be_read(
    tmp_path: Path, workspace: Path
) -> None:
    done = _run(tmp_path, workspace, [
        ("write config", "write('vendored/.git/config', '[core]\\nfsmonitor = evil\\n')"),
        ("truncate config", "os.truncate('vendored/.git/config', 0)"),
        ("remove config", "os.unlink('vendored/.git/config')"),
        ("control read", "assert open('vendored/.git/config').read() == '[core]\\n'"),
    ])  # fmt: skip
    assert done == {
        "write config": "EROFS", "truncate config": "EROFS", "remove config": "EROFS",
        "control read": "ok",
    }  # fmt: skip
    assert (workspace / "vendored" / ".git" / "config").read_text() == "[core]\n"


def test_a_rename_or_hard_link_cannot_give_or_take_a_protected_name(
    tmp_path: Path, workspace: Path
) -> None:
    done = _run(tmp_path, workspace, [
        ("rename to .envrc", "write('x'); os.rename('x', '.envrc')"),
        ("rename to sub/Makefile", "os.rename('x', 'sub/Makefile')"),
        ("link to .envrc", "os.link('x', 'sub/.envrc')"),
        ("link config out", "os.link('vendored/.git/config', 'config-alias')"),
        ("rename config out", "os.rename('vendored/.git/config', 'stolen')"),
        ("control rename", "os.rename('x', 'y')"),
        ("control link", "os.link('y', 'z')"),
    ])  # fmt: skip
    assert done == {
        "rename to .envrc": "EROFS", "rename to sub/Makefile": "EROFS", "link to .envrc": "EROFS",
        "link config out": "EROFS", "rename config out": "EROFS", "control rename": "ok",
        "control link": "ok",
    }  # fmt: skip
    assert (workspace / "y").exists() and (workspace / "z").exists()


def test_a_symlink_cannot_carry_a_protected_name_or_lead_out_of_the_workspace(
    tmp_path: Path, workspace: Path
) -> None:
    (workspace / "cfg").symlink_to("vendored/.git/config")  # the user's own link
    done = _run(tmp_path, workspace, [
        ("symlink named .git", "os.symlink('sub', '.git')"),
        ("symlink outside", "os.symlink(os.environ['GATEWAY_DATA_DIR'], 'elsewhere')"),
        ("symlink climbing out", "os.symlink('../..', 'sub/up')"),
        ("write through a link", "write('cfg')"),
        ("control symlink", "os.symlink('sub', 'sub-link')"),
        ("control write through", "write('sub-link/through.txt')"),
    ])  # fmt: skip
    assert done == {
        "symlink named .git": "EROFS", "symlink outside": "EACCES",
        "symlink climbing out": "EACCES", "write through a link": "EROFS",
        "control symlink": "ok", "control write through": "ok",
    }  # fmt: skip
    assert (workspace / "sub" / "through.txt").exists()


def test_a_folder_from_outside_the_workspace_comes_in_by_copy_not_by_rename(
    tmp_path: Path, workspace: Path
) -> None:
    done = _run(tmp_path, workspace, [
        ("move folder in", "d = os.environ['GATEWAY_DATA_DIR'] + '/pkg'; os.makedirs(d + '/.git');"
                           " os.rename(d, 'pkg')"),
        ("control move a folder within", "os.makedirs('sub/src'); os.rename('sub/src', 'src')"),
    ])  # fmt: skip
    assert done == {"move folder in": "EXDEV", "control move a folder within": "ok"}
    assert not (workspace / "pkg").exists() and (workspace / "src").is_dir()


def test_a_reopened_protected_path_can_be_written_and_nothing_below_or_beside_it(
    tmp_path: Path, workspace: Path
) -> None:
    done = _run(tmp_path, workspace, [
        ("make .envrc", "write('.envrc')"),
        ("make sub/.envrc", "write('sub/.envrc')"),
        ("make hooks", "os.makedirs('.githooks')"),
    ], granted=("workspace.write", "workspace.write:.envrc"))  # fmt: skip
    assert done == {"make .envrc": "ok", "make sub/.envrc": "EROFS", "make hooks": "ok"}


def test_nothing_is_guarded_beneath_node_modules(tmp_path: Path, workspace: Path) -> None:
    done = _run(tmp_path, workspace, [
        ("dependency manifest", "os.makedirs('node_modules/dep'); "
                                "write('node_modules/dep/package.json', '{}')"),
        ("control beside it", "write('package.json', '{}')"),
    ])  # fmt: skip
    assert done == {"dependency manifest": "ok", "control beside it": "EROFS"}


def test_a_refusal_is_reported_once_per_path_with_the_grant_that_reopens_it(
    tmp_path: Path, workspace: Path
) -> None:
    reports: list[Diagnostic] = []
    arrived = threading.Event()

    class Collect(list[Diagnostic]):
        def append(self, item: Diagnostic) -> None:
            reports.append(item)
            arrived.set()

    done = _run(tmp_path, workspace, [
        ("first", "os.mkdir('sub/.git')"), ("again", "os.mkdir('sub/.git')"),
        ("control", "write('sub/fine.txt')"),
    ], reports=Collect())  # fmt: skip
    assert done == {"first": "EROFS", "again": "EROFS", "control": "ok"}
    assert arrived.wait(60)  # read on a thread of its own, after the child's exit
    assert [r.code for r in reports] == ["sandbox.protected_name"]
    assert "sub/.git" in reports[0].message and reports[0].package == "actor"
    assert reports[0].hint == "gateway permissions actor workspace.write:sub/.git"


def test_calls_keep_their_meaning_when_the_supervisor_makes_them(
    tmp_path: Path, workspace: Path
) -> None:
    done = _run(tmp_path, workspace, [
        ("exclusive twice", "fd = os.open('once', os.O_CREAT | os.O_EXCL | os.O_WRONLY); "
                            "os.open('once', os.O_CREAT | os.O_EXCL | os.O_WRONLY)"),
        ("umask", "os.umask(0o077); write('private.txt'); "
                  "assert os.stat('private.txt').st_mode & 0o777 == 0o600"),
        ("append", "write('log.txt', 'a'); fd = os.open('log.txt', os.O_WRONLY | os.O_APPEND); "
                   "os.write(fd, b'b'); os.close(fd); assert open('log.txt').read() == 'ab'"),
        ("close on exec", "fd = os.open('cx', os.O_CREAT | os.O_WRONLY, 0o644); "
                          "assert not os.get_inheritable(fd)"),
        ("inheritable", "fd = ctypes.CDLL(None).open(b'inh', os.O_CREAT | os.O_WRONLY, 0o644); "
                        "assert fd > 2 and os.get_inheritable(fd)"),
        ("missing folder", "write('no/such/file')"),
        ("openat2", "n = ctypes.CDLL(None, use_errno=True).syscall(437, -100, b'x', 0, 0); "
                    "assert n == -1 and ctypes.get_errno() == 38"),
        ("threads", "ts = [threading.Thread(target=write, args=(f't{i}',)) for i in range(8)]; "
                    "[t.start() for t in ts]; [t.join() for t in ts]; "
                    "assert all(os.path.exists(f't{i}') for i in range(8))"),
    ])  # fmt: skip
    assert done == {
        "exclusive twice": "EEXIST", "umask": "ok", "append": "ok", "close on exec": "ok",
        "inheritable": "ok",
        "missing folder": "ENOENT", "openat2": "ok", "threads": "ok",
    }  # fmt: skip


def test_the_program_exits_as_it_would_and_dies_with_its_supervisor(
    tmp_path: Path, workspace: Path
) -> None:
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="actor", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    code = "import os, sys; print(os.getpid(), flush=True); sys.stdin.read(); sys.exit(7)"

    def start() -> tuple[subprocess.Popen[bytes], int]:
        child = spawn_confined(
            [sys.executable, "-c", code], policy=sandbox.policy, cwd=workspace,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
        assert child.stdout is not None
        return child, int(child.stdout.readline())

    first, program = start()
    with first:
        assert program != first.pid  # the gateway holds the supervisor; the program is its child
        first.communicate()
        assert first.returncode == 7
    second, program = start()
    with second:
        pidfd = os.pidfd_open(program)
        try:
            os.kill(second.pid, signal.SIGKILL)
            assert second.wait(timeout=30) == -signal.SIGKILL
            assert select.select([pidfd], [], [], 30)[0] == [pidfd]  # the program is gone too
        finally:
            os.close(pidfd)


def test_a_kernel_without_user_notification_says_what_is_not_guarded(
    tmp_path: Path, workspace: Path
) -> None:
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="actor", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), limits=None,
    )  # fmt: skip
    old = KernelSupport(landlock_abi=7, seccomp=True, private_mounts=True, user_notify=False)
    new = KernelSupport(landlock_abi=7, seccomp=True, private_mounts=True, user_notify=True)
    assert any("do not exist yet" in m for m in missing_protections(sandbox.policy, old))
    assert not any("do not exist yet" in m for m in missing_protections(sandbox.policy, new))


def test_a_guarded_child_started_without_the_gate_gets_its_limits_before_the_program(
    tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """npm's token variables cannot pass the gate's shell: the trampoline holds itself
    until the gateway has set the limits, then forks the program, which inherits them."""
    states: list[str] = []
    prepare = _spawn._Limiting.prepare

    def observed(self: _spawn._Limiting, pid: int) -> None:
        states.append(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])
        prepare(self, pid)

    monkeypatch.setattr(_spawn._Limiting, "prepare", observed)
    mib = 1 << 20
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="npmlike", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), runtime=python_runtime_paths(),
        limits=ResourceLimits(file_size=mib),
    )  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "npm_config_//registry.example/:_authToken": "tok"}
    child = spawn_confined(
        [sys.executable, "-c", "print(open('/proc/self/limits').read())"],
        policy=sandbox.policy, cwd=workspace, env=env, stdout=subprocess.PIPE,
    )  # fmt: skip
    out, _ = child.communicate(timeout=60)
    assert any(
        line.startswith("Max file size") and str(mib) in line for line in out.decode().splitlines()
    )
    assert states == ["T"]  # held (stopped) while its limits were set, before any fork


def test_the_program_holds_none_of_its_supervisors_descriptors(
    tmp_path: Path, workspace: Path
) -> None:
    """Not the listener (it would answer its own calls), not the report socket (it would
    forge refusals), not the hand-over channel."""
    done = _run(tmp_path, workspace, [
        ("only standard streams", "fds = sorted(int(f) for f in os.listdir('/proc/self/fd')); "
                                  "assert fds[:3] == [0, 1, 2] and len(fds) == 4, fds"),
    ])  # fmt: skip
    assert done == {"only standard streams": "ok"}  # the fourth: listdir's own
