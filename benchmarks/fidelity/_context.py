"""The run's set-up: where things go (cache, scratch), the Node and npm used, the environment
every child gets, and upstream nanobot's reader copied into the cache."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

NANOBOT_UPSTREAM = ("HKUDS/nanobot", "a521cf31d952c9403581bdbb6d91e77f1d5f8b85")
NANOBOT_FILES = (
    "nanobot/extensions/codec.py",
    "nanobot/extensions/manifest.py",
    "nanobot/extensions/versioning.py",
    "nanobot/agent/tools/base.py",
    "nanobot/agent/hook.py",
)
# What upstream's hook.py imports beyond these files, used there only in annotations and in
# an error log line: stand-ins, so that the rest of nanobot (tiktoken, providers) is not needed.
NANOBOT_STAND_INS = {
    "loguru/__init__.py": "class _Logger:\n    def __getattr__(self, name):\n"
    "        return lambda *a, **k: None\n\n\nlogger = _Logger()\n",
    "nanobot/providers/__init__.py": "",
    "nanobot/providers/base.py": "class LLMResponse:\n    pass\n\n\n"
    "class ToolCallRequest:\n    pass\n",
}


class HostSetupFailed(Exception):
    pass


class Context:
    def __init__(self, args: argparse.Namespace) -> None:
        from gateway.runtime import find_node

        self.args = args
        self.cache = Path(args.cache).resolve()
        self.cache.mkdir(parents=True, exist_ok=True)
        self.scratch = Path(tempfile.mkdtemp(prefix="gateway-fidelity-"))
        node = find_node()
        if node is None:
            raise SystemExit("fidelity: no Node >= 22.19 (run `gateway setup`)")
        self.node = node
        npm = shutil.which("npm")
        cli = (
            Path(node).resolve().parent.parent
            / "lib"
            / "node_modules"
            / "npm"
            / "bin"
            / "npm-cli.js"
        )
        self.npm = [npm] if npm else [node, str(cli)]
        self.env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_HOME",)}
        # Node first; then this Python's folder: an Agent Plugin's `python3` server is run
        # by the Python that has the mcp SDK, on both sides.
        path = os.pathsep.join([str(Path(node).parent), str(Path(sys.executable).parent)])
        self.env["PATH"] = f"{path}{os.pathsep}{self.env.get('PATH', '')}"
        self.env.setdefault("npm_config_update_notifier", "false")
        self.mirrors = Path(args.git_mirrors)

    def npm_env(self) -> dict[str, str]:
        return {**self.env, "npm_config_fund": "false", "npm_config_audit": "false"}


def nanobot_upstream(ctx: Context) -> Path | None:
    """Upstream's manifest reader (and Tool base) at the extension branch's commit, copied
    from a mirror of the repository into the cache."""
    from _corpus import git_mirror

    repo, commit = NANOBOT_UPSTREAM
    target = ctx.cache / "nanobot-upstream" / commit[:12]
    if (target / ".done").exists():
        return target
    mirror = git_mirror(repo, ctx.mirrors)
    if mirror is None:
        return None
    for relative in NANOBOT_FILES:
        blob = subprocess.run(
            ["git", f"--git-dir={mirror}", "show", f"{commit}:{relative}"],
            capture_output=True,
            check=False,
        )
        if blob.returncode != 0:
            return None
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob.stdout)
    for package in ("nanobot", "nanobot/extensions", "nanobot/agent", "nanobot/agent/tools"):
        (target / package / "__init__.py").touch()
    for relative, text in NANOBOT_STAND_INS.items():
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_text(text)
    (target / ".done").write_text(commit)
    return target
