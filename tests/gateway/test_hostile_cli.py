"""Bad input on the command line and a bad GATEWAY_HOME: each a one-line error with its
code, never a traceback; and what the gateway writes under its home is the user's alone.
Each test failed before the change it covers."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.sandbox import (
    PackageGrants,
    detect_support,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)
from gateway.store import STATE_FILE, StateStore
from tests._cli import gateway_env, run_here


def gateway(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` in this process (tests/_cli.py), under the umask a login shell gives
    (0o022): what the verb refuses, prints and writes."""
    user = home.parent / "user"
    user.mkdir(exist_ok=True)
    saved = os.umask(0o022)
    try:
        return run_here(args, env=gateway_env(home, user), cwd=cwd or user)
    finally:
        os.umask(saved)


def gateway_process(
    home: Path, *args: str | bytes, umask: int = 0o022
) -> subprocess.CompletedProcess[str]:
    """``python -m gateway ARGS``: where the process is the point — the umask it inherits,
    an argument that reaches it as bytes that are not UTF-8."""
    user = home.parent / "user"
    user.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args],
        capture_output=True,
        text=True,
        env=gateway_env(home, user),
        cwd=user,
        timeout=120,
        umask=umask,
    )


def assert_one_line_error(done: subprocess.CompletedProcess[str], code: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gateway: error: "), done.stderr
    assert done.stderr.rstrip().endswith(f"[{code}]"), done.stderr


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --------------------------------------------------------------------------- GATEWAY_HOME


def test_home_and_sessions_are_private_even_with_a_permissive_umask(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    done = gateway_process(home, "list", "--workspace", str(workspace), umask=0o022)
    assert done.returncode == 0, done.stderr
    assert mode(home) == 0o700
    assert mode(home / "sessions") == 0o700
    (session,) = (home / "sessions").iterdir()
    assert mode(session) == 0o600


def test_the_store_is_private(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    done = gateway(home, "trust", str(workspace))
    assert done.returncode == 0, done.stderr
    for path in home.iterdir():
        if path.name.startswith(STATE_FILE):
            assert mode(path) == 0o600, path


def test_an_existing_home_made_with_the_umask_is_tightened(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    StateStore.open(home).close()
    (home / STATE_FILE).chmod(0o644)
    done = gateway(home, "status")
    assert done.returncode == 0, done.stderr
    assert mode(home / STATE_FILE) == 0o600


@pytest.mark.parametrize("verb", [["list"], ["call", "x", "{}"], ["install", "."], ["status"]])
def test_a_home_that_is_a_file_is_one_line(tmp_path: Path, verb: list[str]) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder")
    done = gateway(home, *verb, cwd=tmp_path)
    assert done.returncode == 1
    assert_one_line_error(done, "home.unusable")
    assert "is not a folder" in done.stderr


@pytest.mark.skipif(not detect_support().landlock, reason="needs Landlock to make it read-only")
def test_a_read_only_home_is_one_line(tmp_path: Path) -> None:
    """Read-only even for root: the gateway runs confined with its home readable only."""
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir(mode=0o700)
    workspace.mkdir()
    sandbox = package_sandbox(home=tmp_path / "sandbox", package_id="cli", package_root=None,
                              workspace=workspace, grants=PackageGrants(),
                              runtime=python_runtime_paths())  # fmt: skip
    repository = Path(__file__).resolve().parents[2]
    policy = sandbox.policy.allowing(read=[home, repository])
    env = {"PATH": os.environ["PATH"], "GATEWAY_HOME": str(home), "HOME": str(tmp_path)}
    child = spawn_confined(
        [sys.executable, "-m", "gateway", "list", "--workspace", str(workspace)],
        policy=policy, cwd=repository, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    out, err = child.communicate(timeout=120)
    done = subprocess.CompletedProcess([], child.returncode, out.decode(), err.decode())
    assert done.returncode == 1, done.stderr
    assert_one_line_error(done, "home.unusable")
    assert "is not writable" in done.stderr


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("verb", ["trust", "untrust"])
def test_an_empty_trust_target_is_refused_not_the_current_folder(tmp_path: Path, verb: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    done = gateway(home, verb, "", cwd=cwd)
    assert done.returncode == 2
    assert_one_line_error(done, "cli.invalid_argument")
    assert not (home / STATE_FILE).exists()  # nothing was recorded


def test_an_empty_workspace_is_refused(tmp_path: Path) -> None:
    done = gateway(tmp_path / "home", "list", "--workspace", "")
    assert done.returncode == 2
    assert_one_line_error(done, "cli.invalid_argument")


def test_a_workspace_path_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    workspace = os.fsencode(tmp_path) + b"/caf\xe9"
    os.mkdir(workspace)
    done = gateway_process(tmp_path / "home", "list", "--workspace", workspace)
    assert done.returncode == 2
    assert_one_line_error(done, "cli.invalid_argument")
    assert "not valid UTF-8" in done.stderr


@pytest.mark.parametrize("depth", [65, 5_000])
def test_call_arguments_nested_too_deep_are_one_line(tmp_path: Path, depth: int) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    arguments = '{"a": ' + "[" * depth + "]" * depth + "}"
    done = gateway(tmp_path / "home", "call", "save_note", arguments, "--workspace", str(workspace))
    assert done.returncode == 2
    assert_one_line_error(done, "cli.invalid_argument")
    assert "nests deeper than 64 levels" in done.stderr


def test_refusals_are_json_with_json(tmp_path: Path) -> None:
    done = gateway(tmp_path / "home", "install", "", "--json")
    assert done.returncode == 2
    assert [d["code"] for d in json.loads(done.stdout)["diagnostics"]] == ["cli.invalid_argument"]
