"""The gateway side of one package, the way its user does it: the ``gateway`` command line
(``gateway.cli.main``, in this one process so Python starts once), under the private ``HOME``
and ``GATEWAY_HOME`` the caller put in the environment:

- an installed package: ``gateway install SRC --json``, ``gateway permissions ID …`` with
  what the install says the package asks for (required and optional), ``gateway config``
  for the corpus's settings, ``gateway trust ID``, ``gateway enable ID``;
- a discovered one (already placed in its discovery folder by the caller): nothing;

then ``gateway list --json --workspace WS``.

    python _gateway_driver.py JOBS.json

JOBS.json: a list of jobs, each with its own ``env`` (``HOME``, ``GATEWAY_HOME``) and ``out``
file, run one after the other (``--quick`` runs several in one process: Python and the gateway
are imported once).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gateway.cli import main as gateway


@contextlib.contextmanager
def _captured(fd: int) -> Iterator[Callable[[], str]]:
    """The file descriptor itself redirected (the CLI binds ``sys.stdout`` at import)."""
    stream = sys.stdout if fd == 1 else sys.stderr
    stream.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as holder:
        os.dup2(holder.fileno(), fd)
        text: list[str] = []
        try:
            yield lambda: "".join(text)
        finally:
            stream.flush()
            os.dup2(saved, fd)
            os.close(saved)
            holder.seek(0)
            text.append(holder.read().decode("utf-8", "replace"))


def run(argv: list[str], steps: list[dict[str, Any]]) -> tuple[int, str]:
    with _captured(1) as out, _captured(2) as err:
        try:
            code = gateway(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    steps.append({"argv": argv, "rc": code, "stderr": err()[-1500:]})
    return code, out()


def main() -> None:
    for job in json.loads(Path(sys.argv[1]).read_text()):
        os.environ.update(job["env"])
        os.chdir(job["workspace"])
        started = time.monotonic()
        one(job, job["out"])
        out = Path(job["out"])
        result = json.loads(out.read_text())
        result["seconds"] = round(time.monotonic() - started, 2)
        out.write_text(json.dumps(result))


def one(job: dict[str, Any], out_file: str) -> None:
    steps: list[dict[str, Any]] = []
    result: dict[str, Any] = {"steps": steps}

    def done() -> None:
        Path(out_file).write_text(json.dumps(result))

    if job.get("install"):
        code, text = run(["install", job["install"], "--kind", job["kind"], "--json"], steps)
        try:
            report = json.loads(text)
        except ValueError:
            report = {"error": text[-1500:]}
        result["install"] = report
        if code != 0 or "id" not in report:
            result["failed"] = "install: " + str(report.get("error") or steps[-1]["stderr"])
            return done()
        package_id = report["id"]
        result["id"] = package_id
        wanted = list(report.get("requested_permissions") or [])
        if wanted:
            run(["permissions", package_id, *wanted], steps)
        for key, value in (job.get("config") or {}).items():
            text = value if isinstance(value, str) else json.dumps(value)
            run(["config", package_id, key, text], steps)
        run(["trust", package_id], steps)
        run(["enable", package_id], steps)
    code, text = run(["list", "--json", "--workspace", job["workspace"]], steps)
    try:
        result["list"] = json.loads(text)
    except ValueError:
        result["failed"] = f"list exited {code}: {steps[-1]['stderr'] or text[-500:]}"
    done()


if __name__ == "__main__":
    main()
