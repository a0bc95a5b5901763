"""What a nimlet manifest's command may open in its sandbox (gateway/host/_confinement.py): a
manifest is hostile input, so the paths it names never reach the user's home."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gateway.host import interpreter_paths


def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    folder = tmp_path / "project" / "ext"
    secret = home / ".ssh" / "id_ed25519"
    secret.parent.mkdir(parents=True)
    secret.write_text("PRIVATE KEY")
    folder.mkdir(parents=True)
    (folder / "ext.py").write_text("print()\n")
    return home, folder, secret


def test_an_argument_naming_a_file_in_the_home_is_not_opened(tmp_path: Path) -> None:
    home, folder, secret = layout(tmp_path)
    paths = interpreter_paths([sys.executable, str(secret)], folder, None, protected=(home,))
    assert not any(p == secret or secret.is_relative_to(p) for p in paths)


def test_a_symlink_in_its_folder_to_the_home_is_not_opened(tmp_path: Path) -> None:
    home, folder, secret = layout(tmp_path)
    os.symlink(secret, folder / "key")
    paths = interpreter_paths([sys.executable, "key"], folder, None, protected=(home,))
    assert not any(secret.is_relative_to(p) for p in paths)


def test_its_own_script_and_a_file_outside_the_home_are_opened(tmp_path: Path) -> None:
    home, folder, _ = layout(tmp_path)
    shared = tmp_path / "shared.cfg"
    shared.write_text("")
    paths = interpreter_paths(
        [sys.executable, "ext.py", str(shared)], folder, None, protected=(home,)
    )
    assert (folder / "ext.py").resolve() in paths and shared.resolve() in paths


def test_a_program_in_the_users_path_under_the_home_opens_its_folder_not_the_home(
    tmp_path: Path,
) -> None:
    home, folder, _ = layout(tmp_path)
    tool = home / "bin" / "mytool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    paths = interpreter_paths(["mytool"], folder, str(tool.parent), protected=(home,))
    assert tool.parent in paths and home not in paths


def test_a_program_named_by_path_into_the_home_opens_nothing_there(tmp_path: Path) -> None:
    home, folder, _ = layout(tmp_path)
    tool = home / "tools" / "run"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    paths = interpreter_paths([str(tool)], folder, None, protected=(home,))
    assert not any(p.is_relative_to(home) or home.is_relative_to(p) for p in paths)


def test_a_command_naming_no_possible_file_opens_nothing_and_raises_nothing(
    tmp_path: Path,
) -> None:
    """A manifest's command is the package's text: a program or an argument longer than a
    file name may be (a JSON argument), or holding a NUL byte, names no file — it is not a
    reason to fail the whole start (it was an OSError out of the planning)."""
    home, folder, _ = layout(tmp_path)
    long = "x" * 300
    for command in ([sys.executable, long], [sys.executable, "a\x00b"], [f"./{long}"]):
        paths = interpreter_paths(command, folder, None, protected=(home,))
        assert not any(long in str(p) for p in paths)
