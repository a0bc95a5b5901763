"""``spawn_confined`` and ``wait_for_exit``: what the child gets, what the gateway keeps."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest

from gateway.sandbox import (
    KernelSupport,
    SandboxError,
    SandboxPolicy,
    SandboxUnavailable,
    python_runtime_paths,
    spawn_confined,
    system_policy,
    wait_for_exit,
)
from gateway.sandbox import _confine as confine_module
from gateway.sandbox._gate import own_filesystem_context
from gateway.sandbox._landlock import LandlockError

from .conftest import needs_landlock

pytestmark = needs_landlock


def _policy(*, read: tuple[Path, ...] = (), write: tuple[Path, ...] = ()) -> SandboxPolicy:
    return system_policy().allowing(execute=python_runtime_paths(), read=read, write=write)


def _run(
    argv: list[str], policy: SandboxPolicy, **kwargs: object
) -> subprocess.CompletedProcess[str]:
    child = spawn_confined(
        argv, policy=policy, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs
    )  # type: ignore[arg-type]
    out, _ = child.communicate(timeout=60)
    return subprocess.CompletedProcess(argv, child.returncode, out.decode(), "")


def _status(text: str) -> dict[str, str]:
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def test_child_has_no_capabilities_no_new_privs_and_a_seccomp_filter() -> None:
    done = _run(["/bin/cat", "/proc/self/status"], _policy())
    status = _status(done.stdout)
    for field in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(status[field], 16) == 0, field
    if os.geteuid() == 0:  # emptying the bounding set needs CAP_SETPCAP
        assert int(status["CapBnd"], 16) == 0
    assert status["NoNewPrivs"] == "1"
    assert status["Seccomp"] == "2"


def test_child_running_as_root_cannot_regain_capabilities_by_exec() -> None:
    if os.geteuid() != 0:
        pytest.skip("root's capabilities on exec only matter for root")
    # sh execs cat: a root execve normally refills the capability sets.
    done = _run(["/bin/sh", "-c", "exec /bin/cat /proc/self/status"], _policy())
    assert int(_status(done.stdout)["CapEff"], 16) == 0


def test_the_gateway_thread_stays_unconfined(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("mine")
    done = _run(["/bin/cat", str(secret)], _policy())
    assert done.returncode != 0 and "Permission denied" in done.stdout
    # This thread and the process: no no_new_privs, files and Unix sockets as before.
    assert _status(Path("/proc/thread-self/status").read_text())["NoNewPrivs"] == "0"
    assert secret.read_text() == "mine"
    socket.socket(socket.AF_UNIX).close()


def test_each_spawn_starts_from_an_unconfined_thread(tmp_path: Path) -> None:
    """Landlock domains only ever narrow: a reused confining thread would carry the first
    policy into the second spawn and refuse what the second allows."""
    secret = tmp_path / "secret"
    secret.write_text("readable by the second child only")
    first = _run(["/bin/cat", str(secret)], _policy())
    second = _run(["/bin/cat", str(secret)], _policy(read=(tmp_path,)))
    assert first.returncode != 0
    assert second.returncode == 0 and second.stdout == "readable by the second child only"


def test_concurrent_spawns_under_different_policies_do_not_mix(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("x")
    allowed, denied = _policy(read=(tmp_path,)), _policy()

    def one(index: int) -> tuple[bool, int]:
        grant = index % 2 == 0
        done = _run(["/bin/cat", str(secret)], allowed if grant else denied)
        return grant, done.returncode

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(one, range(24)))
    assert all((code == 0) == grant for grant, code in results)


def test_threads_still_start_while_spawns_check_their_programs() -> None:
    """The program check is an execve (``AT_EXECVE_CHECK``): on the filesystem context the
    process's threads share it would make every other thread's start fail meanwhile."""
    policy = _policy()

    def spawn_then_start_a_thread(_: int) -> int:
        done = _run(["/bin/true"], policy)
        thread = threading.Thread(target=lambda: None)
        thread.start()
        thread.join()
        return done.returncode

    with ThreadPoolExecutor(max_workers=6) as pool:
        assert set(pool.map(spawn_then_start_a_thread, range(240))) == {0}


def test_the_program_check_runs_on_a_filesystem_context_of_its_own(tmp_path: Path) -> None:
    before = os.getcwd()

    def elsewhere() -> None:
        own_filesystem_context()
        os.chdir(tmp_path)

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert os.getcwd() == before


def test_nothing_starts_when_the_kernel_refuses_to_confine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(ruleset: object) -> None:
        raise LandlockError(1, "Operation not permitted")

    monkeypatch.setattr(confine_module, "restrict_self", refuse)
    marker = tmp_path / "started"
    with pytest.raises(SandboxError, match="cannot confine"):
        spawn_confined(["/bin/touch", str(marker)], policy=_policy(write=(tmp_path,)))
    assert not marker.exists()


def test_required_sandbox_refuses_a_kernel_without_landlock(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    none = KernelSupport(landlock_abi=0, seccomp=True, reason="a test kernel")
    with pytest.raises(SandboxUnavailable) as raised:
        spawn_confined(["/bin/touch", str(marker)], policy=_policy(), support=none, require=True)
    assert raised.value.diagnostic().code == "sandbox.refused"
    assert "filesystem rules" in str(raised.value)
    assert not marker.exists()


def test_required_sandbox_refuses_a_landlock_without_scoping(tmp_path: Path) -> None:
    old = KernelSupport(landlock_abi=5, seccomp=True)
    with pytest.raises(SandboxUnavailable, match="signal scoping"):
        spawn_confined(["/bin/true"], policy=_policy(), support=old, require=True)


def test_required_sandbox_runs_on_a_capable_kernel() -> None:
    child = spawn_confined(["/bin/true"], policy=_policy(), require=True)
    assert child.wait() == 0


def test_a_program_the_policy_does_not_let_run_fails_like_popen(tmp_path: Path) -> None:
    program = tmp_path / "tool"
    shutil.copy("/bin/true", program)
    with pytest.raises(PermissionError):
        spawn_confined([str(program)], policy=_policy(read=(tmp_path,)))
    with pytest.raises(FileNotFoundError):
        spawn_confined([str(tmp_path / "missing")], policy=_policy())


def test_a_writable_folder_made_again_stays_writable(tmp_path: Path) -> None:
    """Rules hold the folder they saw; the ruleset cache notices a new folder."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    policy = _policy(write=(folder,))
    assert _run(["/bin/touch", str(folder / "a")], policy).returncode == 0
    shutil.rmtree(folder)
    folder.mkdir()
    assert _run(["/bin/touch", str(folder / "b")], policy).returncode == 0


def test_a_readable_file_replaced_atomically_stays_readable(tmp_path: Path) -> None:
    """A settings file written to a temporary name and renamed over is a new file."""
    settings = tmp_path / "settings.json"
    settings.write_text("{}")
    policy = _policy(read=(settings,))
    assert _run(["/bin/cat", str(settings)], policy).returncode == 0
    replacement = tmp_path / "settings.json.new"
    replacement.write_text('{"new": true}')
    os.replace(replacement, settings)
    done = _run(["/bin/cat", str(settings)], policy)
    assert (done.returncode, done.stdout) == (0, '{"new": true}')


def test_passed_descriptors_reach_the_child() -> None:
    read_end, write_end = os.pipe()
    try:
        child = spawn_confined(
            [sys.executable, "-c", f"import os; os.write({write_end}, b'through')"],
            policy=_policy(),
            pass_fds=[write_end],
        )
        assert child.wait() == 0
        os.close(write_end)
        assert os.read(read_end, 100) == b"through"
    finally:
        os.close(read_end)


@pytest.mark.anyio
async def test_wait_for_exit_returns_the_exit_code() -> None:
    child = spawn_confined([sys.executable, "-c", "raise SystemExit(7)"], policy=_policy())
    assert await wait_for_exit(child) == 7
    assert child.returncode == 7


@pytest.mark.anyio
async def test_wait_for_exit_does_not_wait_for_a_grandchild_holding_stdout(tmp_path: Path) -> None:
    """The extension exited; its grandchild keeps the pipe open. The exit is seen at
    once, not when the pipe closes."""
    script = "sleep 60 & echo $! ; exit 3"
    child = spawn_confined(["/bin/sh", "-c", script], policy=_policy(), stdout=subprocess.PIPE)
    assert child.stdout is not None
    grandchild = int(child.stdout.readline())
    try:
        assert await wait_for_exit(child) == 3
        os.kill(grandchild, 0)  # still alive, still holding the pipe
    finally:
        os.kill(grandchild, 9)
        child.stdout.close()


@pytest.mark.anyio
async def test_wait_for_exit_can_be_cancelled() -> None:
    child = spawn_confined(["/bin/sleep", "60"], policy=_policy())
    try:
        with anyio.move_on_after(0.1) as scope:
            await wait_for_exit(child)
        assert scope.cancelled_caught
        assert child.returncode is None
    finally:
        child.kill()
        assert await wait_for_exit(child) == -9


def test_the_confining_thread_is_gone_after_the_spawn() -> None:
    before = {t.ident for t in threading.enumerate()}
    spawn_confined(["/bin/true"], policy=_policy()).wait()
    assert {t.ident for t in threading.enumerate()} <= before


def test_a_spawn_without_network_grants_by_destination_loads_no_egress_proxy() -> None:
    """The proxy (HTTP, TLS names, upstream proxies) is for a child in a network namespace
    of its own; a one-shot call of a package without such grants does not import it."""
    code = (
        "import sys\n"
        "from gateway.sandbox import python_runtime_paths, spawn_confined, system_policy\n"
        "policy = system_policy().allowing(execute=python_runtime_paths())\n"
        "assert spawn_confined(['/bin/true'], policy=policy).wait() == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('gateway.sandbox.egress')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "[]", done.stderr
