"""What a confined process may read to run a program a package names
(``gateway.runtime.program_reads``, shared by the Agent Plugins and Claude Code plugin
adapters and nimlet manifests): the program and its installation, never a toolchain's
credential files, and a venv's Python whole."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.runtime import program_reads
from gateway.sandbox import (
    PackageGrants,
    detect_support,
    package_sandbox,
    python_runtime_paths,
    spawn_confined,
)

needs_landlock = pytest.mark.skipif(
    not sys.platform.startswith("linux") or detect_support().landlock_abi < 6,
    reason="needs Linux with Landlock ABI 6 or later",
)


def _executable(path: Path, text: str = "#!/bin/sh\necho ran\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    cargo = home / ".cargo"
    _executable(cargo / "bin" / "cargo")
    (cargo / "registry" / "index").mkdir(parents=True)
    (cargo / "config.toml").write_text("[net]\n")
    (cargo / "credentials.toml").write_text('[registry]\ntoken = "cio_secret"\n')
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    return home


def _covers(paths: tuple[Path, ...], target: Path) -> bool:
    real = Path(os.path.realpath(target))
    return any(real == Path(os.path.realpath(p)) or Path(os.path.realpath(p)) in real.parents
               for p in paths)  # fmt: skip


def test_a_toolchain_on_path_opens_its_installation_but_not_its_credentials(home: Path) -> None:
    reads = program_reads(["cargo"], path_env=str(home / ".cargo" / "bin"), home=home)
    cargo = home / ".cargo"
    assert _covers(reads, cargo / "bin" / "cargo") and _covers(reads, cargo / "config.toml")
    assert _covers(reads, cargo / "registry" / "index")
    assert not _covers(reads, cargo / "credentials.toml")
    assert not _covers(reads, home / ".ssh" / "id_ed25519") and home not in reads


def test_a_node_installation_in_the_home_keeps_its_global_npmrc(home: Path) -> None:
    node = home / ".nvm" / "versions" / "node" / "v24.0.0"
    _executable(node / "bin" / "tool")
    (node / "etc").mkdir(parents=True)
    (node / "etc" / "npmrc").write_text("//registry.npmjs.org/:_authToken=npm_secret\n")
    (node / "lib").mkdir()
    reads = program_reads(["tool"], path_env=str(node / "bin"), home=home)
    assert _covers(reads, node / "lib") and not _covers(reads, node / "etc" / "npmrc")


def test_a_symlink_beside_the_program_to_a_credential_is_not_followed(home: Path) -> None:
    (home / ".cargo" / "token").symlink_to(home / ".cargo" / "credentials.toml")
    reads = program_reads(["cargo"], path_env=str(home / ".cargo" / "bin"), home=home)
    assert not _covers(reads, home / ".cargo" / "token")
    assert not _covers(reads, home / ".cargo" / "credentials.toml")


def test_a_path_the_package_names_into_the_home_opens_nothing(home: Path, tmp_path: Path) -> None:
    own = tmp_path / "plugin"
    own.mkdir()
    secret = str(home / ".ssh" / "id_ed25519")
    assert program_reads([secret], path_env=None, home=home, own=own) == ()
    assert program_reads([str(home / ".cargo" / "bin" / "cargo")], path_env=None, home=home) == ()


def test_a_script_the_package_ships_cannot_name_a_secret_as_its_interpreter(
    home: Path, tmp_path: Path
) -> None:
    own = tmp_path / "plugin"
    _executable(own / "run", f"#!{home / '.ssh' / 'id_ed25519'}\n")
    reads = program_reads([str(own / "run")], path_env=None, home=home, own=own)
    assert not _covers(reads, home / ".ssh" / "id_ed25519")


def _venv(where: Path) -> Path:
    """A venv whose packages include the gateway's own (a .pth file), with a console
    script: what `pip install` into a project's venv leaves."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next((where / "lib").glob("python*/site-packages"))
    own_site = next(p for p in sys.path if p.endswith("site-packages"))
    (site / "gateway-test.pth").write_text(own_site + "\n")
    script = "import sys, mcp\nprint('console script ran with', sys.prefix)\n"
    _executable(where / "bin" / "hello-venv", f"#!{where / 'bin' / 'python'}\n{script}")
    return where


@pytest.fixture
def venv(home: Path) -> Path:
    return _venv(home / "projects" / "tool" / ".venv")


def test_a_venvs_console_script_opens_the_venv_and_only_it(home: Path, venv: Path) -> None:
    reads = program_reads(["hello-venv"], path_env=str(venv / "bin"), home=home)
    assert _covers(reads, venv / "pyvenv.cfg") and _covers(reads, venv / "lib")
    assert not _covers(reads, venv.parent / "README.md") and home not in reads


def _run_confined(home: Path, tmp_path: Path, reads: tuple[Path, ...], argv: list[str]) -> str:
    sandbox = package_sandbox(
        home=tmp_path / "gateway", package_id="reader", package_root=None, workspace=None,
        grants=PackageGrants(), runtime=(*python_runtime_paths(), *reads), limits=None,
    )  # fmt: skip
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    try:
        child = spawn_confined(
            argv, policy=sandbox.policy, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
    except (PermissionError, FileNotFoundError) as error:
        # Not found: unnamed, it is hidden by the child's private /tmp (pytest's folders
        # are there), which refuses it as surely.
        return f"refused: {error}"
    out, _ = child.communicate(timeout=60)
    return out.decode()


@needs_landlock
def test_confined_a_toolchain_reads_its_settings_and_never_its_credentials(
    home: Path, tmp_path: Path
) -> None:
    reads = program_reads(["cargo"], path_env=str(home / ".cargo" / "bin"), home=home)
    cargo = home / ".cargo"
    said = _run_confined(home, tmp_path, reads, ["/bin/sh", "-c", (
        f"cat {cargo}/config.toml && {cargo}/bin/cargo; cat {cargo}/credentials.toml"
    )])  # fmt: skip
    assert "[net]" in said and "ran" in said  # the control: its own settings and program
    assert "cio_secret" not in said and "Permission denied" in said


@needs_landlock
def test_confined_a_venvs_console_script_runs(home: Path, tmp_path: Path, venv: Path) -> None:
    reads = program_reads(["hello-venv"], path_env=str(venv / "bin"), home=home)
    said = _run_confined(home, tmp_path, reads, [str(venv / "bin" / "hello-venv")])
    assert f"console script ran with {venv}" in said, said
    bare = _run_confined(home, tmp_path, (), [str(venv / "bin" / "hello-venv")])
    assert "console script ran" not in bare  # without the venv: what issue 31 saw


@needs_landlock
def test_confined_python_from_a_venv_runs(home: Path, tmp_path: Path, venv: Path) -> None:
    python = str(venv / "bin" / "python")
    reads = program_reads(["python"], path_env=str(venv / "bin"), home=home)
    said = _run_confined(home, tmp_path, reads, [python, "-c", "import sys; print(sys.prefix)"])
    assert said.strip() == str(venv), said


_PART = st.sampled_from(["a", "ab", "b", "a.b", "..x", " ", "é", "a/", ""])


@given(st.lists(_PART, max_size=5), st.lists(_PART, max_size=5), st.booleans())
def test_beneath_answers_as_path_parents_does(path: list[str], folder: list[str], slashes: bool):
    """The plan's containment check is text on absolute paths: the same answer as
    ``Path.parents`` for any of them (a shared prefix that is not a folder is not inside)."""
    from gateway.runtime._program_reads import _beneath

    lead = "//" if slashes else "/"
    inside, outside = Path(lead + "/".join(path)), Path(lead + "/".join(folder))
    assert _beneath(inside, outside) == (inside == outside or outside in inside.parents)
