"""Protected paths inside a writable workspace: git's hooks, CI and agent configs stay
read-only for a package granted ``workspace.write``, unless the user reopens one by name."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.sandbox import (
    KernelSupport,
    detect_support,
    grants_from,
    missing_protections,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)
from gateway.sandbox._protected import protected_within, reopened_names, user_namespaces_allowed
from tests._cli import run_here

from .conftest import needs_landlock

needs_mounts = pytest.mark.skipif(
    not detect_support().private_mounts, reason="needs CAP_SYS_ADMIN for a mount namespace"
)

WRITER = """
import sys
for rel in sys.argv[1:]:
    try:
        with open(rel, "w") as handle:
            handle.write("written")
        print(rel, "written")
    except OSError as error:
        print(rel, type(error).__name__, error.errno)
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    for folder in (".git/hooks", ".github/workflows", "src"):
        (root / folder).mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / "AGENTS.md").write_text("be kind\n")
    return root


def _writes(tmp_path: Path, workspace: Path, granted: list[str], *paths: str) -> dict[str, str]:
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="writer", package_root=None, workspace=workspace,
        grants=grants_from(granted), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    child = spawn_confined(
        [sys.executable, "-c", WRITER, *paths], policy=sandbox.policy, cwd=workspace,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    out, _ = child.communicate(timeout=60)
    return dict(line.split(" ", 1) for line in out.decode().splitlines())


@needs_landlock
@needs_mounts
def test_git_hooks_ci_and_agent_instructions_stay_read_only_under_workspace_write(
    tmp_path: Path, workspace: Path
) -> None:
    done = _writes(
        tmp_path, workspace, ["workspace.write"],
        "src/ok.py", "new.txt", ".git/hooks/pre-commit", ".git/config",
        ".github/workflows/ci.yml", "AGENTS.md",
    )  # fmt: skip
    assert done["src/ok.py"] == "written" and done["new.txt"] == "written"
    for rel in (".git/hooks/pre-commit", ".git/config", ".github/workflows/ci.yml", "AGENTS.md"):
        assert done[rel] == f"OSError {30}", rel  # EROFS
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert (workspace / "AGENTS.md").read_text() == "be kind\n"


@needs_landlock
@needs_mounts
def test_a_path_reopened_by_name_is_writable_and_its_neighbours_are_not(
    tmp_path: Path, workspace: Path
) -> None:
    done = _writes(
        tmp_path, workspace, ["workspace.write", "workspace.write:.git/hooks"],
        ".git/hooks/pre-commit", ".git/config",
    )  # fmt: skip
    assert done == {".git/hooks/pre-commit": "written", ".git/config": "OSError 30"}


@needs_landlock
@needs_mounts
def test_the_gateways_own_view_of_the_workspace_is_unchanged(
    tmp_path: Path, workspace: Path
) -> None:
    _writes(tmp_path, workspace, ["workspace.write"], "src/ok.py")
    (workspace / ".git" / "hooks" / "mine").write_text("the user may still write")
    assert os.access(workspace / ".git" / "config", os.W_OK)


def test_without_workspace_write_nothing_needs_protecting(workspace: Path, tmp_path: Path) -> None:
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="reader", package_root=None, workspace=workspace,
        grants=grants_from([]), limits=None,
    )  # fmt: skip
    assert sandbox.policy.read_only_within == ()


def test_a_kernel_without_private_mounts_says_the_paths_are_not_protected(
    workspace: Path, tmp_path: Path
) -> None:
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="writer", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), limits=None,
    )  # fmt: skip
    support = KernelSupport(landlock_abi=7, seccomp=True, private_mounts=False)
    (said,) = [m for m in missing_protections(sandbox.policy, support) if "read-only" in m]
    assert ".git" in said and "CAP_SYS_ADMIN" in said


@pytest.mark.parametrize(
    ("grant", "reopened"),
    [
        ("workspace.write:.git/hooks", {".git/hooks"}),
        ("workspace.write:.git/hooks/", {".git/hooks"}),
        ("workspace.write:../outside", set()),
        ("workspace.write:/etc", set()),
        ("workspace.write:", set()),
    ],
)
def test_only_relative_paths_inside_the_workspace_reopen(grant: str, reopened: set[str]) -> None:
    assert reopened_names([grant]) == reopened


def test_a_symlinked_protected_path_is_not_bound(tmp_path: Path) -> None:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / ".github").symlink_to("/etc")
    (root / ".git").mkdir()
    read_only, _ = protected_within(root)
    assert read_only == (root / ".git",)


def test_permissions_grants_a_protected_path_by_name_with_widen(tmp_path: Path) -> None:
    from tests.adapters._helpers import write_tree

    env = {**os.environ, "GATEWAY_HOME": str(tmp_path / "home")}
    write_tree(tmp_path / "pkg", {"extension.json": {"name": "w", "command": ["./x"]}})

    def gateway(*args: str) -> subprocess.CompletedProcess[str]:
        """The verb in this process (tests/_cli.run_here)."""
        return run_here(args, env=env, cwd=tmp_path)

    assert gateway("install", str(tmp_path / "pkg")).returncode == 0
    refused = gateway("permissions", "w", "--grant", "workspace.write:..")
    done = gateway("permissions", "w", "--grant", "workspace.write:.git/hooks", "--widen")
    assert refused.returncode == 1 and done.returncode == 0, done.stderr
    assert ".git/hooks becomes writable inside the workspace" in done.stdout
    assert "granted      workspace.write:.git/hooks" in done.stdout


def test_a_write_to_a_protected_path_is_explained_without_a_command_to_copy(
    workspace: Path, tmp_path: Path
) -> None:
    from gateway.sandbox import explain_denial

    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="writer", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), limits=None,
    )  # fmt: skip
    line = f"OSError: [Errno 30] Read-only file system: '{workspace}/.git/hooks/pre-commit'"
    said = explain_denial(line, sandbox.policy, "writer", workspace)
    assert said is not None and said.code == "sandbox.denied" and said.hint is None
    assert "workspace.write:.git" in said.message and "read the package's code" in said.message


@needs_landlock
@needs_mounts
def test_an_extension_inside_a_protected_folder_keeps_its_own_folder_writable(
    tmp_path: Path, workspace: Path
) -> None:
    own = workspace / ".nimlet" / "extensions" / "notes"
    other = workspace / ".nimlet" / "extensions" / "guard"
    own.mkdir(parents=True)
    other.mkdir(parents=True)
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="notes", package_root=own, workspace=workspace,
        grants=grants_from(["workspace.write"]), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    child = spawn_confined(
        [sys.executable, "-c", WRITER, f"{own}/state.json", f"{other}/extension.json"],
        policy=sandbox.policy, cwd=workspace, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    out, _ = child.communicate(timeout=60)
    done = dict(line.split(" ", 1) for line in out.decode().splitlines())
    assert done == {f"{own}/state.json": "written", f"{other}/extension.json": "OSError 30"}


@needs_landlock
@pytest.mark.skipif(
    not user_namespaces_allowed(), reason="this kernel does not allow user namespaces"
)
def test_without_cap_sys_admin_the_trampoline_protects_the_same_paths(
    tmp_path: Path, workspace: Path
) -> None:
    """As a user without CAP_SYS_ADMIN runs it: the child makes its own user and mount
    namespaces (the trampoline), then enters the same sandbox."""
    support = dataclasses.replace(detect_support(), private_mounts=False, user_namespaces=True)
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="writer", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write", "workspace.write:.git/hooks"]),
        runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    paths = ["src/ok.py", ".git/hooks/pre-commit", ".git/config", "AGENTS.md", "/etc/hostname"]
    child = spawn_confined(
        [sys.executable, "-c", WRITER, *paths], policy=sandbox.policy, cwd=workspace,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, support=support,
    )  # fmt: skip
    out, _ = child.communicate(timeout=60)
    done = dict(line.split(" ", 1) for line in out.decode().splitlines())
    assert done == {
        "src/ok.py": "written",
        ".git/hooks/pre-commit": "written",
        ".git/config": "OSError 30",
        "AGENTS.md": "OSError 30",
        "/etc/hostname": "PermissionError 13",  # Landlock, entered by the trampoline
    }


def test_a_missing_program_behind_the_trampoline_raises_as_popen_does(
    tmp_path: Path, workspace: Path
) -> None:
    support = dataclasses.replace(detect_support(), private_mounts=False, user_namespaces=True)
    sandbox = package_sandbox(
        home=tmp_path / "home", package_id="writer", package_root=None, workspace=workspace,
        grants=grants_from(["workspace.write"]), limits=None,
    )  # fmt: skip
    with pytest.raises(FileNotFoundError):
        spawn_confined(["no-such-program-here"], policy=sandbox.policy, support=support)


@needs_landlock
@needs_mounts
def test_package_json_scripts_cannot_be_added_unless_it_is_reopened(
    tmp_path: Path, workspace: Path
) -> None:
    manifest = workspace / "package.json"
    manifest.write_text('{"name": "project"}\n')
    done = _writes(tmp_path, workspace, ["workspace.write"], "package.json", "src/index.js")
    assert done["package.json"] == "OSError 30" and done["src/index.js"] == "written"
    assert manifest.read_text() == '{"name": "project"}\n'
    again = _writes(
        tmp_path, workspace, ["workspace.write", "workspace.write:package.json"], "package.json"
    )
    assert again["package.json"] == "written"  # the control: reopened by name, it lands
