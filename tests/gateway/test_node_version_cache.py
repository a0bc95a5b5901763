"""``node_version`` asks a Node once per executable file, not once per gateway start: the
answer is kept under ``GATEWAY_HOME/cache`` for that very file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def version_in_fresh_process(node: Path, home: Path) -> str:
    code = "import sys; from gateway.runtime import node_version; print(node_version(sys.argv[1]))"
    env = {**os.environ, "GATEWAY_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", code, str(node)], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def test_a_node_is_asked_its_version_once_until_its_file_changes(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    runs = tmp_path / "runs"
    node = tmp_path / "node"
    node.write_text(f"#!/bin/sh\necho run >> {runs}\necho v23.1.2\n")
    node.chmod(0o755)
    assert version_in_fresh_process(node, home) == "(23, 1, 2)"
    assert version_in_fresh_process(node, home) == "(23, 1, 2)"
    assert runs.read_text().count("run") == 1
    assert (home / "cache" / "node-versions.json").stat().st_mode & 0o077 == 0
    node.write_text(f"#!/bin/sh\necho run >> {runs}\necho v24.0.0\n")  # another Node now
    assert version_in_fresh_process(node, home) == "(24, 0, 0)"
    assert runs.read_text().count("run") == 2


def test_without_a_home_nothing_is_written(tmp_path):
    node = tmp_path / "node"
    node.write_text("#!/bin/sh\necho v22.20.0\n")
    node.chmod(0o755)
    home = tmp_path / "absent"
    assert version_in_fresh_process(node, home) == "(22, 20, 0)"
    assert not home.exists()
