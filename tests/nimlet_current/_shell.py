"""Running ``gateway shell`` (and other CLI verbs) as ``python -m gateway`` would, in the test's
process where it can (tests/_cli.py); the extensions are real processes either way."""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

from tests._cli import run_gateway


def run_cli(
    workspace: Any, *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env["GATEWAY_HOME"] = str(workspace.home / ".gateway")
    env["HOME"] = str(workspace.home)
    return run_gateway(
        [*args, "--workspace", str(workspace.root), "--trust"],
        env=env,
        cwd=os.getcwd(),
        stdin=stdin,
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
