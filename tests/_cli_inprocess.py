"""``gateway ARGS`` run in this process, as the ecosystems' tests saw it run as a subprocess:
``GATEWAY_HOME`` and ``HOME`` in the test's folder, none of this process's other
``GATEWAY_*`` variables, the current directory the user's home, ``stdin`` a pipe holding the
given text (else ``/dev/null``), stdout and stderr captured — and the same
``subprocess.CompletedProcess`` back.

A ``gateway`` process costs ~1 s of CPU to start (the interpreter and the CLI's imports) and
does nothing the verbs under test need: where a test is about what a verb does, not about
the process, it runs here (the sidecars and runtimes the verb starts are still real
processes). Where the process itself matters — an environment variable that the gateway's
own interpreter must see (``PYTHONPATH``), a terminal — the tests keep a real subprocess.

It runs through ``tests._cli.run_here``, which puts back everything the run changes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests._cli import gateway_env, run_here

__all__ = ["run_gateway"]


def run_gateway(
    home: Path,
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    user: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``gateway ARGS`` with ``GATEWAY_HOME=home`` and ``HOME=user`` (``home``'s parent by
    default) and ``env`` added to the environment, in ``cwd`` (the user's home by default);
    its exit code and output. Not ``PYTHONPATH``: this interpreter's path was made when it
    started (a test about it runs a subprocess)."""
    if env and "PYTHONPATH" in env:
        raise ValueError("PYTHONPATH changes nothing in this process: run a subprocess")
    user = user or home.parent
    environment = gateway_env(home, user, env)
    environment["GATEWAY_SESSION"] = "off"  # as a subprocess with piped output: no session
    return run_here(args, env=environment, cwd=cwd or user, stdin=stdin)
