"""The arguments of the verbs about the gateway itself rather than packages: ``doctor``,
``completion``, ``docs`` and the hidden ``__complete`` that completion scripts call.
argparse alone, like ``gateway.cli._parser``, which lists them (``TOOL_VERBS``)."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing itself costs several ms at start
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["COMPLETE_VERB", "SHELLS", "TOOL_VERBS"]

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VERB = "__complete"
"""Hidden: what completion scripts call for the installed ids (reads the store only)."""


def _doctor(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--json", action="store_true", help="machine-readable output")


def _completion(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("shell", nargs="?", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    sub.add_argument(
        "--install",
        action="store_true",
        help="write the script where SHELL finds it (default SHELL: the one $SHELL names)",
    )


def _docs(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("topic", nargs="?", metavar="TOPIC", help="e.g. cli (without: the topics)")


def _session(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "action",
        choices=("status", "stop"),
        help="status: every warm session of this GATEWAY_HOME; stop: the workspace's",
    )
    sub.add_argument("--workspace", help="stop: this workspace's session (default: the current)")
    sub.add_argument("--all", action="store_true", help="stop: every session")
    sub.add_argument("--json", action="store_true", help="machine-readable output")


def _complete(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("what", choices=("ids", "prefer"))


_DOCTOR = (
    "Check this installation and GATEWAY_HOME: Python, Node and the private Node "
    "environment, the Node sidecar's modules, the sandbox, the state store, disk use and "
    "every installed package's gates. One line per check (ok, warn or fail) with the command "
    "that fixes it; exit 1 when a check fails."
)
_SESSION = (
    "`gateway list`, `call` and `command` run in a warm session of their workspace, a "
    "background process started on first use that keeps the packages' runtimes running "
    "(on a terminal; GATEWAY_SESSION=on|off decides elsewhere). It ends after "
    "GATEWAY_SESSION_IDLE seconds (600) without a command. See `gateway docs session`."
)
TOOL_VERBS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], str | None]] = {
    "doctor": (
        "check the installation and GATEWAY_HOME, and say how to fix them",
        _doctor,
        _DOCTOR,
    ),
    "completion": (
        "print or install a shell completion script (bash, zsh, fish)",
        _completion,
        None,
    ),
    "docs": ("print the documentation shipped with the gateway", _docs, None),
    "session": (
        "the warm sessions that serve list, call and command: status, stop",
        _session,
        _SESSION,
    ),
    COMPLETE_VERB: ("", _complete, None),
}
"""Each verb: its help line ("" for a hidden one), what adds its arguments, its description."""
