"""Private scratch space: each package's child gets its own ``/tmp`` (its temp folder bound
over it, as systemd's ``PrivateTmp=``) and its own ``HOME``, so what a host allows at load
(``/tmp/<name>``, ``~/.<tool>``) lands in the package's folders, never in the user's.

The gateway home and the workspace are made outside ``/tmp`` here: a policy that names a
folder under ``/tmp`` it may not write keeps the real ``/tmp`` (Landlock's rules follow a
bind back up to the private folder, which is writable), and pytest's folders are there."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.sandbox import (
    KernelSupport,
    SandboxError,
    detect_support,
    grants_from,
    missing_protections,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)

from .conftest import needs_landlock, needs_runtime_outside_tmp

_THREAD = detect_support()
_TRAMPOLINE = dataclasses.replace(_THREAD, private_mounts=False, user_namespaces=True)
_WAYS = pytest.mark.parametrize("support", [_THREAD, _TRAMPOLINE], ids=["thread", "trampoline"])
_OUTSIDE_TMP = Path("/dev/shm")

WRITER = """
import os, sys
for path in sys.argv[1:]:
    path = os.path.expanduser(path)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write("written")
        print(path, "written")
    except OSError as error:
        print(path, type(error).__name__)
"""


@pytest.fixture
def outside() -> Iterator[Path]:
    if not _OUTSIDE_TMP.is_dir() or not os.access(_OUTSIDE_TMP, os.W_OK):
        pytest.skip("needs a writable folder outside /tmp and /var/tmp (/dev/shm)")
    folder = Path(tempfile.mkdtemp(prefix="gw-scratch-", dir=_OUTSIDE_TMP))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run(
    home: Path, workspace: Path, support: KernelSupport, *paths: str
) -> tuple[dict[str, str], Path, Path]:
    sandbox = package_sandbox(
        home=home, package_id="scratch", package_root=None, workspace=workspace,
        grants=grants_from(()), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    assert sandbox.home_dir is not None
    env = {**os.environ, **sandbox.environment}
    child = spawn_confined(
        [sys.executable, "-c", WRITER, *paths], policy=sandbox.policy, cwd=workspace, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, support=support,
    )  # fmt: skip
    out, _ = child.communicate(timeout=60)
    lines = out.decode().splitlines()
    return dict(line.rsplit(" ", 1) for line in lines), sandbox.tmp_dir, sandbox.home_dir


@needs_landlock
@needs_runtime_outside_tmp
@_WAYS
def test_a_write_to_tmp_lands_in_the_packages_own_temp_folder(
    outside: Path, support: KernelSupport
) -> None:
    if not (support.private_mounts or support.user_namespaces):
        pytest.skip("no way to make a mount namespace here")
    workspace = outside / "ws"
    workspace.mkdir()
    name = f"gw-load-{uuid.uuid4().hex}"
    done, tmp_dir, _ = _run(outside / "gw", workspace, support, f"/tmp/{name}/state.json",
                            f"/var/tmp/{name}.var")  # fmt: skip
    assert done[f"/tmp/{name}/state.json"] == "written"
    assert (tmp_dir / name / "state.json").read_text() == "written"
    assert not Path("/tmp", name).exists(), "the user's /tmp was written"
    if Path("/var/tmp").is_dir():
        assert done[f"/var/tmp/{name}.var"] == "written"  # the same private folder
        assert (tmp_dir / f"{name}.var").is_file()
        assert not Path("/var/tmp", f"{name}.var").exists()


@needs_landlock
@_WAYS
def test_a_write_to_home_lands_in_the_packages_private_home(
    outside: Path, support: KernelSupport
) -> None:
    workspace = outside / "ws"
    workspace.mkdir()
    done, _, own_home = _run(outside / "gw", workspace, support, "~/.tool/config.json")
    assert done[str(own_home / ".tool" / "config.json")] == "written"
    assert (own_home / ".tool" / "config.json").read_text() == "written"
    assert not (Path.home() / ".tool" / "config.json").exists()
    assert own_home.stat().st_mode & 0o777 == 0o700


@needs_landlock
def test_the_users_real_home_stays_unreadable(outside: Path) -> None:
    workspace = outside / "ws"
    workspace.mkdir()
    reader = (
        "import os, sys\n"
        "try:\n    os.listdir(sys.argv[1]); print('listed')\n"
        "except OSError as e:\n    print(type(e).__name__)\n"
    )
    sandbox = package_sandbox(
        home=outside / "gw", package_id="scratch", package_root=None, workspace=workspace,
        grants=grants_from(()), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    child = spawn_confined(
        [sys.executable, "-c", reader, str(Path.home())], policy=sandbox.policy, cwd=workspace,
        env={**os.environ, **sandbox.environment}, stdout=subprocess.PIPE,
    )  # fmt: skip
    out, _ = child.communicate(timeout=60)
    # Refused by Landlock, or hidden by the private /tmp when the home lives there (the
    # suite's own isolated HOME does): unreadable either way, never listed.
    assert out.decode().strip() in ("PermissionError", "FileNotFoundError")


@needs_landlock
def test_a_workspace_in_tmp_keeps_the_real_tmp_and_refuses_writes_there(tmp_path: Path) -> None:
    """The control: where /tmp holds a folder the package may only read, /tmp is not made
    private (that would make the folder writable), and writing /tmp stays refused."""
    if not str(tmp_path).startswith("/tmp/"):
        pytest.skip("pytest's folders are not in /tmp here")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    name = f"gw-load-{uuid.uuid4().hex}"
    done, tmp_dir, _ = _run(tmp_path / "gw", workspace, _THREAD, f"/tmp/{name}")
    assert done[f"/tmp/{name}"] == "PermissionError"
    assert not (tmp_dir / name).exists() and not Path("/tmp", name).exists()
    assert not (workspace / "x").exists()


def test_a_kernel_without_namespaces_refuses_tmp_as_before(outside: Path) -> None:
    """No private /tmp is no protection lost: writes there are refused, as they were."""
    from gateway.sandbox._isolation import effective_policy, namespace_plan

    sandbox = package_sandbox(
        home=outside / "gw", package_id="scratch", package_root=None, workspace=None,
        grants=grants_from(()), limits=None,
    )  # fmt: skip
    bare = dataclasses.replace(_THREAD, private_mounts=False, user_namespaces=False)
    assert effective_policy(sandbox.policy, bare).private_tmp is None
    assert namespace_plan(effective_policy(sandbox.policy, bare), None) is None
    assert missing_protections(sandbox.policy, bare) == missing_protections(
        dataclasses.replace(sandbox.policy, private_tmp=None), bare
    )


@needs_landlock
@needs_runtime_outside_tmp
@_WAYS
def test_a_link_left_in_its_temp_folder_is_never_followed_at_the_next_start(
    tmp_path: Path, support: KernelSupport
) -> None:
    """Where its folders are under /tmp, their places are made inside its private /tmp (its
    temp folder) before Landlock, as root: a link it left there must not lead them out."""
    if not str(tmp_path).startswith("/tmp/"):
        pytest.skip("pytest's folders are not in /tmp here")
    home = tmp_path / "gw"
    sandbox = package_sandbox(
        home=home, package_id="scratch", package_root=None, workspace=None,
        grants=grants_from(()), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    first = tmp_path.relative_to("/tmp").parts[0]
    (sandbox.tmp_dir / first).symlink_to(elsewhere)
    try:
        child = spawn_confined(
            [sys.executable, "-c", "print('ran')"], policy=sandbox.policy,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, support=support,
        )  # fmt: skip
        out, err = child.communicate(timeout=60)
        assert b"ran" not in out and child.returncode == 126, err
    except SandboxError as error:
        assert "not a folder" in str(error) or "Too many levels" in str(error)
    assert list(elsewhere.iterdir()) == [], "a folder was made through the link"
    (sandbox.tmp_dir / first).unlink()
    child = spawn_confined(  # the control: without the link it starts
        [sys.executable, "-c", "print('ran')"], policy=sandbox.policy,
        stdout=subprocess.PIPE, support=support,
    )  # fmt: skip
    assert child.communicate(timeout=60)[0] == b"ran\n"


def test_a_temp_folder_is_covered_only_when_all_it_holds_of_the_policy_may_be_written() -> None:
    """``private_tmp_plan``'s rules, on paths (compared as text: a name sharing a temp
    folder's prefix is not inside it)."""
    from gateway.sandbox._namespaces import private_tmp_plan

    own = [Path("/tmp/gw/data/p"), Path("/tmp/gw/tmp/p"), Path("/tmp/gw/tmp/p/deeper")]
    elsewhere = [Path("/usr"), Path("/tmpx/workspace"), Path("/var/tmpfiles")]
    private = Path("/tmp/gw/tmp/p")
    covered, keep = private_tmp_plan(private, [*own, *elsewhere], own)
    assert covered == (Path("/tmp"), Path("/var/tmp"))
    assert keep == (Path("/tmp/gw/data/p"), Path("/tmp/gw/tmp/p"))  # shallowest, each once
    # A workspace in /tmp that may not be written: /tmp stays, /var/tmp is covered.
    covered, keep = private_tmp_plan(private, [*own, Path("/tmp/ws")], own)
    assert covered == (Path("/var/tmp"),) and keep == ()
    # `/` named (read): it holds both folders, and may not be written.
    assert private_tmp_plan(private, [*own, Path("/")], own) == ((), ())
    assert private_tmp_plan(None, own, own) == ((), ())
