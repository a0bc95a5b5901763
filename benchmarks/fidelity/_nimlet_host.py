"""nimlet's own rules, outside the gateway: nimlet is a Nim program with no library to call,
so this is a small reference reader written from nimlet's README and sources
(shared/specs/nimlet-upstream.md), independent of the gateway's code: an ``extension.json``
extension is started in the workspace, sent ``initialize``, and its first line must be
``register`` (tools, commands, events); a ``tool.json`` tool is its manifest's name; a skill
is its SKILL.md's name; a prompt template is its file name.

    python _nimlet_host.py OUT.json JOB.json

JOB.json: a list of {key, path, kind, cwd, timeout}.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _command(folder: Path, command: list[str]) -> list[str]:
    first = command[0]
    if "/" in first or "\\" in first:
        first = str((folder / first).resolve())
    else:
        first = shutil.which(first) or first
    return [first, *command[1:]]


def extension(job: dict[str, Any]) -> dict[str, Any]:
    folder = Path(job["path"])
    manifest = json.loads((folder / "extension.json").read_text())
    command = manifest.get("command")
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(c, str) and c for c in command)
    ):
        raise ValueError("extension.json: command must be a non-empty array of strings")
    child = subprocess.Popen(
        _command(folder, command),
        cwd=job["cwd"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    assert child.stdin and child.stdout
    try:
        hello = {
            "type": "initialize",
            "version": 1,
            "workspace": job["cwd"],
            "session_id": "fidelity",
        }
        child.stdin.write((json.dumps(hello) + "\n").encode())
        child.stdin.flush()
        ready, _, _ = select.select([child.stdout], [], [], float(job.get("timeout", 30)))
        if not ready:
            raise TimeoutError("no register line in time")
        line = child.stdout.readline()
        message = json.loads(line)
        if message.get("type") != "register":
            raise ValueError(f"first line is not register: {line[:200]!r}")
        tools = message.get("tools") or []
        commands = message.get("commands")
        if not isinstance(commands, list):
            raise ValueError("register: commands is required")
        return {
            "name": manifest.get("name"),
            "tools": [t["name"] for t in tools],
            "commands": [c["name"] for c in commands],
            "events": list(message.get("events") or []),
        }
    finally:
        try:
            child.stdin.write(b'{"type":"shutdown"}\n')
            child.stdin.close()
            child.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            child.kill()
            child.wait()


def _front_matter_name(text: str) -> str | None:
    match = re.search(r"^---\n(.*?)\n---", text, re.S)
    if match:
        name = re.search(r"^name:\s*(.+)$", match.group(1), re.M)
        if name:
            return name.group(1).strip().strip("\"'")
    return None


def load_one(job: dict[str, Any]) -> dict[str, Any]:
    path, kind = Path(job["path"]), job["kind"]
    out: dict[str, Any] = {
        "key": job["key"],
        "tools": [],
        "commands": [],
        "events": [],
        "skills": [],
        "prompts": [],
    }
    if kind == "extension":
        out.update(extension(job))
    elif kind == "tool":
        out["tools"] = [json.loads((path / "tool.json").read_text())["name"]]
    elif kind == "skill":
        text = (path / "SKILL.md").read_text()
        out["skills"] = [_front_matter_name(text) or path.name]
    elif kind == "prompt":
        out["prompts"] = [path.stem]
    return out


def main() -> None:
    out_file, job_file = sys.argv[1], sys.argv[2]
    results = []
    for job in json.loads(Path(job_file).read_text()):
        started = time.monotonic()
        try:
            result = load_one(job)
        except Exception as error:
            result = {"key": job["key"], "failed": f"{type(error).__name__}: {error}"}
        result["seconds"] = round(time.monotonic() - started, 3)
        results.append(result)
        Path(out_file).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
