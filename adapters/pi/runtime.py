"""``python -m adapters.pi.runtime``: ``gateway setup --all`` from a clone (the README's
set-up, and CI's): the modules of every host (pi-coding-agent, jiti, esbuild and the OpenClaw
SDK), since the test suite runs OpenClaw plugins too. A program, never imported: the Pi
launch is ``adapters.pi._launch`` (its public names are ``adapters.pi``'s)."""

from __future__ import annotations

import sys

__all__ = ["install_sidecar"]


def install_sidecar() -> int:
    """Run the setup of every host; 0 when it finished, 1 when it did not (said why)."""
    from gateway.base import GatewayConfig, terminal_progress
    from gateway.runtime import SetupError, run_setup

    try:
        with terminal_progress(quiet=False) as progress:
            report = run_setup(GatewayConfig().home, progress=progress, extras=frozenset({"all"}))
    except SetupError as error:
        print(f"setup did not finish: {error}", file=sys.stderr)
        return 1
    print("\n".join(f"  {line}" for line in report.steps))
    return 0


if __name__ == "__main__":
    raise SystemExit(install_sidecar())
