"""Resource limits of a package's processes: read from its settings, held by a cgroup where
the kernel delegates one and by rlimits elsewhere, in place before the program's first
instruction, and named when a process runs into one (docs/security.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.base import Diagnostic
from gateway.sandbox import (
    Cgroups,
    PackageGrants,
    PackageSandbox,
    ResourceLimits,
    SandboxError,
    _exceeded,
    _spawn,
    cleanup_cgroups,
    detect_cgroups,
    explain_exit,
    explain_limit,
    limits_from_settings,
    package_sandbox,
    parse_size,
    python_runtime_paths,
    spawn_confined,
)
from gateway.sandbox._cgroups import parse_cgroups
from gateway.sandbox._limits import node_heap_argument

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs Linux")
MIB = 1 << 20
NODE = shutil.which("node")


# --------------------------------------------------------------------------- settings


def test_sizes_are_read_as_people_write_them() -> None:
    assert parse_size("512M") == 512 * MIB
    assert parse_size("2G") == parse_size("2GiB") == parse_size("2 gb") == 2 << 30
    assert parse_size("1.5G") == 3 << 29
    assert parse_size(4096) == 4096
    assert parse_size("off") is None and parse_size(None) is None
    for wrong in ("lots", "-1M", 0, True, "5X"):
        with pytest.raises(ValueError):
            parse_size(wrong)


def test_a_package_setting_changes_only_the_limits_it_names() -> None:
    limits, problems = limits_from_settings({"memory": "512M", "pids": 64}, "notes")
    assert problems == []
    assert limits == ResourceLimits(memory=512 * MIB, pids=64, group="notes")
    unlimited, _ = limits_from_settings({"memory": "off", "cpu_weight": None}, "notes")
    assert unlimited.memory is None and unlimited.cpu_weight is None
    assert unlimited.pids == ResourceLimits().pids


def test_a_setting_that_cannot_be_used_keeps_its_default_and_says_why() -> None:
    limits, problems = limits_from_settings({"memory": "lots", "pids": 0, "cpus": 2}, "p")
    assert limits == ResourceLimits(group="p")
    assert len(problems) == 3
    assert any("memory" in p and "not a size" in p for p in problems)
    assert any("'cpus'" in p for p in problems)
    _, problems = limits_from_settings("512M", "p")  # type: ignore[arg-type]
    assert problems == ["$gateway.limits must be an object, not str"]


def test_one_process_for_several_packages_gets_the_largest_of_their_limits() -> None:
    small = ResourceLimits(memory=256 * MIB, pids=32, group="a")
    large = ResourceLimits(memory=4 << 30, pids=None, file_size=MIB)
    widest = small.widest([large])
    assert (widest.memory, widest.pids, widest.file_size) == (4 << 30, None, 1 << 30)


def test_node_gets_a_heap_limit_below_its_memory_limit() -> None:
    limits = ResourceLimits(memory=1 << 30)
    assert node_heap_argument(["/opt/node/bin/node", "app.js"], limits) == [
        "/opt/node/bin/node", "--max-old-space-size=768", "app.js"
    ]  # fmt: skip
    launcher = ["/bin/sh", "-c", 'exec "$0" "$@"', "/usr/bin/node", "sidecar.mjs"]
    assert node_heap_argument(launcher, limits) == [*launcher[:4], "--max-old-space-size=768",
                                                    "sidecar.mjs"]  # fmt: skip
    assert node_heap_argument(["python3", "app.py"], limits) == ["python3", "app.py"]
    own = ["node", "--max-old-space-size=100", "app.js"]
    assert node_heap_argument(own, limits) == own
    assert node_heap_argument(["node"], ResourceLimits(memory=None)) == ["node"]


# --------------------------------------------------------------------------- cgroups found


def _controllers(folder: Path, offered: str) -> Path:
    folder.mkdir(parents=True)
    for name, text in (("cgroup.controllers", offered), ("cgroup.subtree_control", ""),
                       ("cgroup.procs", f"{os.getpid()}\n")):  # fmt: skip
        (folder / name).write_text(text)
    return folder


def test_cgroup_v2_is_used_where_the_gateways_cgroup_offers_the_controllers(
    tmp_path: Path,
) -> None:
    own = _controllers(tmp_path / "cg" / "user.slice" / "gw.scope", "cpuset cpu io memory pids")
    mountinfo = f"41 31 0:38 / {tmp_path / 'cg'} rw,relatime - cgroup2 cgroup2 rw\n"
    found = parse_cgroups(mountinfo, "0::/user.slice/gw.scope\n")
    assert found.describe() == "cgroup v2 (cpu, memory, pids)"
    group = found.group("notes")
    assert group is not None
    group.set_limits(ResourceLimits(memory=512 * MIB, pids=64, cpu_weight=50))
    folder = own / f"extension-gateway-{os.getpid()}" / "notes"
    assert {p.name: p.read_text() for p in folder.iterdir()} == {
        "memory.max": str(512 * MIB), "pids.max": "64", "cpu.weight": "50"
    }  # fmt: skip
    assert (own / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
    assert found.existing("notes") is group and found.existing("other") is None


def test_cgroup_v1_hierarchies_are_used_each_for_its_controller(tmp_path: Path) -> None:
    mountinfo = "".join(
        f"3{n} 31 0:3{n} / {tmp_path / name} rw - cgroup cgroup rw,{options}\n"
        for n, (name, options) in enumerate(
            [("memory", "memory"), ("pids", "pids"), ("cpu,cpuacct", "cpu,cpuacct")]
        )
    )
    for name in ("memory", "pids", "cpu,cpuacct"):
        (tmp_path / name / "box").mkdir(parents=True)
    membership = "4:memory:/box\n8:pids:/box\n1:cpu,cpuacct:/box\n0::/\n"
    found = parse_cgroups(mountinfo, membership)
    assert found.describe() == "cgroup v1 (cpu, memory, pids)"
    group = found.group("notes")
    assert group is not None
    group.set_limits(ResourceLimits(memory=None, pids=64, cpu_weight=50))
    base = f"box/extension-gateway-{os.getpid()}/notes"
    assert (tmp_path / "memory" / base / "memory.limit_in_bytes").read_text() == "-1"
    assert (tmp_path / "pids" / base / "pids.max").read_text() == "64"
    assert (tmp_path / "cpu,cpuacct" / base / "cpu.shares").read_text() == "512"


def test_without_a_delegated_cgroup_there_are_none_and_the_reason_is_kept(tmp_path: Path) -> None:
    _controllers(tmp_path / "cg" / "gw.scope", "io")  # no memory, pids or cpu offered
    mountinfo = f"41 31 0:38 / {tmp_path / 'cg'} rw - cgroup2 cgroup2 rw\n"
    found = parse_cgroups(mountinfo, "0::/gw.scope\n")
    assert found.group("notes") is None
    assert "delegates no memory, pids or cpu controller" in found.describe()


def test_the_folders_of_a_gateway_that_died_are_removed(tmp_path: Path) -> None:
    own = _controllers(tmp_path / "cg" / "gw", "memory pids")
    dead = own / "extension-gateway-999999999"  # above pid_max: never a live process
    (dead / "notes").mkdir(parents=True)
    found = parse_cgroups(f"1 1 0:1 / {tmp_path / 'cg'} rw - cgroup2 cgroup2 rw\n", "0::/gw\n")
    assert found.group("notes") is not None
    assert not dead.exists()


# --------------------------------------------------------------------------- enforced


@pytest.fixture(params=["cgroup", "rlimits"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each enforcement test runs with this machine's cgroups (where the kernel delegates
    them) and with rlimits alone, as on a machine without."""
    if request.param == "cgroup":
        if not detect_cgroups().controllers:
            pytest.skip(f"this machine has {detect_cgroups().describe()}")
    else:
        none = Cgroups([], "a test without cgroups")
        monkeypatch.setattr(_spawn, "detect_cgroups", lambda: none)
        monkeypatch.setattr(_exceeded, "detect_cgroups", lambda: none)
    yield request.param


def _sandbox(tmp_path: Path, name: str, **limits: int | None) -> PackageSandbox:
    return package_sandbox(
        home=tmp_path / "gateway", package_id=name, package_root=None, workspace=None,
        grants=PackageGrants(), runtime=python_runtime_paths(),
        limits=ResourceLimits(group=name, **limits),  # type: ignore[arg-type]
    )  # fmt: skip


def _run(sandbox: PackageSandbox, argv: list[str]) -> tuple[int, str, list[Diagnostic]]:
    """Exit status, stdout, and what the gateway says about its limits (stderr's lines and
    the exit), as an extension process would report it."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **sandbox.environment}
    child = spawn_confined(
        argv, policy=sandbox.policy, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = child.communicate(timeout=120)
    name = sandbox.policy.limits.group if sandbox.policy.limits else ""
    said = [explain_limit(line, sandbox.policy, name) for line in err.decode().splitlines()]
    said += explain_exit(child.returncode, sandbox.policy, name)
    return child.returncode, out.decode(), [d for d in said if d is not None]


def _limits_named(said: list[Diagnostic], package: str, what: str) -> bool:
    return any(
        d.code == "sandbox.limit_exceeded" and d.package == package and what in d.message
        for d in said
    )


def test_a_child_is_limited_from_its_first_instruction(tmp_path: Path, mode: str) -> None:
    """The program's first act reads its cgroup and its limits: both are already set."""
    sandbox = _sandbox(tmp_path, "first", file_size=MIB)
    code, out, _ = _run(sandbox, ["/bin/cat", "/proc/self/cgroup", "/proc/self/limits"])
    assert code == 0, out
    assert (f"extension-gateway-{os.getpid()}/first" in out) == (mode == "cgroup")
    limits = {line[:26].strip(): line[26:].split()[:2] for line in out.splitlines()}
    assert limits["Max file size"] == [str(MIB)] * 2
    assert limits["Max core file size"] == ["0", "0"]


def test_the_gate_hands_the_program_its_environment_as_given(tmp_path: Path) -> None:
    """The shell sets PWD, OPTIND, PPID and IFS itself: each comes back as given (or not at
    all)."""
    sandbox = _sandbox(tmp_path, "env")
    for env in (
        {"PATH": "/usr/bin:/bin", "A": "one two"},
        {"PATH": "/usr/bin:/bin", "PWD": "/else", "OPTIND": "3", "PPID": "9", "IFS": ":1"},
    ):
        child = spawn_confined(["env"], policy=sandbox.policy, env=env, stdout=subprocess.PIPE)
        out, _ = child.communicate(timeout=60)
        assert sorted(out.decode().splitlines()) == sorted(f"{k}={v}" for k, v in env.items())


def test_a_variable_no_shell_can_carry_reaches_the_program_behind_its_limits(
    tmp_path: Path, mode: str
) -> None:
    """npm reads its registry tokens from such names, which a shell gate would drop: the
    trampoline holds the child instead, so the program's first instruction already runs
    under its limits and in its package's cgroup — it reads them at once, with nothing to
    wait for."""
    sandbox = _sandbox(tmp_path, "npmlike", file_size=MIB)
    env = {"PATH": "/usr/bin:/bin", "npm_config_//registry.example/:_authToken": "tok"}
    show = (
        "import os; print(os.environ.get('npm_config_//registry.example/:_authToken'));"
        " print(' '.join(open('/proc/self/cgroup').read().split()));"
        " print(open('/proc/self/limits').read())"
    )
    child = spawn_confined(
        [sys.executable, "-c", show], policy=sandbox.policy, env=env, stdout=subprocess.PIPE
    )
    out, _ = child.communicate(timeout=60)
    token, cgroup, limits = out.decode().split("\n", 2)
    assert token == "tok"
    assert any(
        line.startswith("Max file size") and str(MIB) in line for line in limits.splitlines()
    )
    assert ("npmlike" in cgroup) == (mode == "cgroup"), cgroup


def test_a_child_no_shell_can_carry_is_stopped_before_its_program_while_limits_are_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []
    prepare = _spawn._Limiting.prepare

    def observed(self: _spawn._Limiting, pid: int) -> None:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        seen.append((state, Path(f"/proc/{pid}/cmdline").read_bytes().decode()))
        prepare(self, pid)

    monkeypatch.setattr(_spawn._Limiting, "prepare", observed)
    sandbox = _sandbox(tmp_path, "held", file_size=MIB)
    env = {"PATH": "/usr/bin:/bin", "npm_config_//registry.example/:_authToken": "tok"}
    child = spawn_confined(["/bin/true"], policy=sandbox.policy, env=env)
    assert child.wait(timeout=60) == 0
    [(state, cmdline)] = seen
    assert state == "T" and "_trampoline.py" in cmdline, (state, cmdline)


def test_nothing_runs_when_its_limits_cannot_be_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: object, pid: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(_spawn._Limiting, "prepare", refuse)
    sandbox = _sandbox(tmp_path, "refused")
    marker = sandbox.data_dir / "started"
    with pytest.raises(SandboxError, match="cannot set the limits"):
        spawn_confined(["/bin/touch", str(marker)], policy=sandbox.policy)
    assert not marker.exists()


def test_a_memory_hog_is_stopped_at_its_limit_and_named(tmp_path: Path, mode: str) -> None:
    sandbox = _sandbox(tmp_path, "hog", memory=64 * MIB)
    hog = "chunks = []\nwhile True:\n    chunks.append(bytearray(1 << 20))"
    code, _, said = _run(sandbox, [sys.executable, "-c", hog])
    assert code != 0
    assert _limits_named(said, "hog", "memory limit (64 MiB)"), said


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_a_node_memory_hog_is_stopped_at_its_limit_and_named(tmp_path: Path, mode: str) -> None:
    assert NODE is not None
    sandbox = _sandbox(tmp_path, "nodehog", memory=256 * MIB)
    hog = "const kept = []; for (;;) kept.push(new Array(1e5).fill(1.5));"
    code, _, said = _run(sandbox, [NODE, "-e", hog])
    assert code != 0
    assert _limits_named(said, "nodehog", "memory limit (256 MiB)"), said


# Forks until refused, at most 200 (a bounded bomb); the children wait on a pipe so they
# all count at once, and go when it closes.
FORK_BOMB = """\
import os
read_end, write_end = os.pipe()
made = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            os.close(write_end)
            os.read(read_end, 1)
            os._exit(0)
        made += 1
except OSError as error:
    print(made, error.errno)
os.close(write_end)
"""


def test_a_fork_bomb_stops_at_the_process_limit_and_is_named(tmp_path: Path, mode: str) -> None:
    if mode == "rlimits":
        pytest.skip(
            "without a pids cgroup only RLIMIT_NPROC counts processes: per user, never for "
            "root, and set with room for the user's others (docs/security.md)"
        )
    if "pids" not in detect_cgroups().controllers:
        pytest.skip("no pids controller here")
    sandbox = _sandbox(tmp_path, "bomb", pids=16)
    code, out, said = _run(sandbox, [sys.executable, "-c", FORK_BOMB])
    made, error = out.split()
    assert code == 0 and int(made) < 16 and error == "11"  # EAGAIN
    assert _limits_named(said, "bomb", "limit of 16 processes"), said


@pytest.mark.parametrize("writer", ["python", "head"])
def test_a_file_written_past_its_limit_stops_there_and_is_named(
    tmp_path: Path, mode: str, writer: str
) -> None:
    """Python ignores SIGXFSZ and gets EFBIG; a program that does not is stopped by it."""
    sandbox = _sandbox(tmp_path, "writer", file_size=MIB)
    target = sandbox.tmp_dir / "big"
    if writer == "python":
        argv = [sys.executable, "-c", f"open({str(target)!r}, 'wb').write(bytes(3 << 20))"]
    else:
        argv = ["/bin/sh", "-c", f"exec head -c 3000000 /dev/zero > {target}"]
    code, _, said = _run(sandbox, argv)
    assert code != 0
    assert target.stat().st_size <= MIB
    assert _limits_named(said, "writer", "file size limit (1 MiB)"), said


def test_the_groups_go_at_the_end_of_a_command_and_come_back_for_the_next_spawn(
    tmp_path: Path,
) -> None:
    """A CLI leaves with os._exit, past atexit: it removes its groups once its processes
    are gone, and a later spawn in the same process makes them again."""
    if not detect_cgroups().controllers:
        pytest.skip(f"this machine has {detect_cgroups().describe()}")
    sandbox = _sandbox(tmp_path, "again")
    assert _run(sandbox, ["/bin/true"])[0] == 0
    group = detect_cgroups().existing("again")
    assert group is not None
    folders = list(group.folders.values())
    cleanup_cgroups()
    assert not any(folder.exists() for folder in folders)
    code, out, _ = _run(sandbox, ["/bin/cat", "/proc/self/cgroup"])
    assert code == 0 and f"extension-gateway-{os.getpid()}/again" in out
