"""Child program of test_faults: installs and uninstalls that SIGKILL themselves at a step.

    python -m tests.gateway.packages._fault_child '[[VERB, HOME, TARGET, STEP], …]'

VERB is "install" (TARGET a folder) or "uninstall" (TARGET a package id); STEP is a
checkpoint name ("fetched", "verified", "prepared", "placed", "recorded", "unrecorded"), "start"
(killed while the source is being copied into staging) or "none" (run to the end). Each run
is a fork of this process, so the imports are paid once; the exit code of each (-9 for a
SIGKILL) is printed as a JSON list.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback
from pathlib import Path

from gateway.packages import _installer, install, load_adapters, uninstall


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def run(verb: str, home: str, target: str, step: str) -> None:
    def checkpoint(name: str) -> None:
        if name == step:
            _die()

    if step == "start":

        def half_fetch(source: object, staging: Path, **options: object) -> object:
            (staging / "package").mkdir()
            (staging / "package" / "half-copied.txt").write_text("partial")
            _die()
            raise AssertionError("not reached")

        _installer.fetch = half_fetch  # type: ignore[assignment]
    if verb == "install":
        install(
            Path(home),
            target,
            kind="local",
            inspector=load_adapters().inspect,
            checkpoint=checkpoint,
            # The new version is in another folder: reinstalled under its id as ``update``
            # and ``sync`` reinstall a package (the CLI's install would ask for --replace).
            other_source="reinstall",
        )
    else:
        uninstall(Path(home), target, checkpoint=checkpoint)


def main(spec: str) -> None:
    load_adapters()  # resolve the entry point before forking
    codes = []
    for verb, home, target, step in json.loads(spec):
        pid = os.fork()
        if pid == 0:
            try:
                run(verb, home, target, step)
            except BaseException:
                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        codes.append(os.waitstatus_to_exitcode(status))
    print(json.dumps(codes))


if __name__ == "__main__":
    main(sys.argv[1])
