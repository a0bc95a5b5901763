"""What `gateway install` says: a path typo, a broken package.json at the user's path, a
nanobot manifest error said once, and plain progress lines off a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests._cli import gateway_env
from tests.gateway.packages._helpers import nanobot, recorded, write_tree


def test_a_path_typo_without_dot_slash_is_not_sent_to_npm(tmp_path: Path, run_cli) -> None:
    done = run_cli(tmp_path / "home", "install", "exmaples/notes")
    assert done.returncode == 1
    assert done.stderr.startswith("gateway: error: exmaples/notes does not exist. ")
    assert "exmaples/notes does not exist" in done.stderr
    assert "npm" not in done.stderr.split("does not exist")[0] and "128" not in done.stderr
    assert recorded(tmp_path / "home") == []


def test_a_missing_tarball_name_is_a_path_typo_too(tmp_path: Path, run_cli) -> None:
    done = run_cli(tmp_path / "home", "install", "pkg-1.0.0.tgz", "--json")
    assert "pkg-1.0.0.tgz does not exist" in json.loads(done.stdout)["error"]


def test_package_json_with_a_syntax_error_is_json_invalid_at_the_users_path(
    tmp_path: Path, run_cli
) -> None:
    source = write_tree(tmp_path / "broken", {"package.json": '{"name": "x",\n'})
    done = run_cli(tmp_path / "home", "install", str(source), "--json")
    out = json.loads(done.stdout)
    codes = [d["code"] for d in out["diagnostics"]]
    assert codes == ["install.refused", "package.json_invalid"]
    assert out["error"].startswith(f"cannot install {source}: package.json: invalid JSON at line")
    assert ".staging" not in done.stdout
    text = run_cli(tmp_path / "home", "install", str(source))
    assert ".staging" not in text.stderr and "no nimlet" not in text.stderr
    assert "[package.json_invalid]" in text.stderr


def test_a_nanobot_manifest_error_is_printed_once(tmp_path: Path, run_cli) -> None:
    source = nanobot(tmp_path / "src", "acme.bad")
    manifest = json.loads((source / "nanobot.extension.json").read_text())
    manifest["bogus"] = 1
    (source / "nanobot.extension.json").write_text(json.dumps(manifest))
    done = run_cli(tmp_path / "home", "install", str(source))
    assert done.returncode == 1
    assert done.stderr.count("bogus: unknown field") == 1, done.stderr
    assert f"gateway: error: cannot install {source.resolve()}:" in done.stderr


def test_progress_is_plain_lines_on_stderr_off_a_terminal(tmp_path: Path, run_cli) -> None:
    source = nanobot(tmp_path / "src", "acme.fine")
    done = run_cli(tmp_path / "home", "install", str(source))
    assert done.returncode == 0
    steps = [line for line in done.stderr.splitlines() if line.startswith("gateway: ")]
    assert steps[0] == f"gateway: fetching {source.resolve()} (local)"
    assert "gateway: verifying the files (links, special files, limits)" in steps
    assert "gateway: reading the package's metadata" in steps
    assert "\x1b[" not in done.stderr  # no terminal escapes in a pipe
    quiet = run_cli(tmp_path / "home2", "install", str(source), "--json")
    assert quiet.stderr == ""


def test_an_install_whose_reader_went_away_still_installs(tmp_path: Path) -> None:
    # `gateway install X 2>&1 | head -1`: the pipe closes after the first progress line. The
    # install is the work asked for, not its report: it is done (it was abandoned half-way,
    # exit 0, nothing installed). A process with a real pipe: what is tested is the pipe.
    source = nanobot(tmp_path / "src", "piped")
    home = tmp_path / "home"
    read, write = os.pipe()
    os.close(read)  # every write to the pipe now fails (EPIPE): the reader is gone
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gateway", "install", str(source)],
            stdout=write, stderr=write, env=gateway_env(home, tmp_path / "user"),
            timeout=120, check=False,
        )  # fmt: skip
    finally:
        os.close(write)
    assert done.returncode == 0
    assert [p.id for p in recorded(home)] == ["piped"]
