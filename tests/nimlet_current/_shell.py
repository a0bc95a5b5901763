"""Running ``gateway shell`` (and other CLI verbs) as a real subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any


def run_cli(
    workspace: Any, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env["GATEWAY_HOME"] = str(workspace.home / ".gateway")
    env["HOME"] = str(workspace.home)
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args, "--workspace", str(workspace.root), "--trust"],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def shell(workspace: Any, *lines: str, options: tuple[str, ...] = ()) -> str:
    done = run_cli(workspace, "shell", *options, stdin="\n".join([*lines, "/quit"]) + "\n")
    assert done.returncode == 0, done.stderr
    return done.stdout


def output_lines(out: str) -> list[str]:
    """The shell's output lines without the prompts printed before them (stdin is a pipe, so
    what was typed is not echoed)."""
    return [re.sub(r"^(> |[a-z ()\[\],]+> )+", "", line) for line in out.splitlines()]
