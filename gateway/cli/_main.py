"""``gateway``: parse, check what every verb shares, then import and run the verb.

Exit codes: 0 when a result was produced and is not an error, 1 for an error result (a
failed or blocked call, a failed command), an unknown tool or command or a failed
operation, 2 for bad usage.

A verb's implementation is imported when it runs (``_VERBS``): ``gateway --version`` or a
``gateway trust`` does not pay for the host, the MCP SDK or the audit's renderers, which
together took most of a short command's time (docs/performance/cli.md, "CLI start").
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from gateway.cli._errors import BadArgument, Usage, error
from gateway.cli._parser import PACKAGE_VERBS, build_parser

TYPE_CHECKING = False  # typing itself costs several ms at start
if TYPE_CHECKING:
    from typing import NoReturn

    from gateway.base import GatewayConfig

__all__ = ["explained", "main"]

Verb = Callable[[argparse.Namespace, "GatewayConfig"], int]

_VERBS: dict[str, tuple[str, str]] = {
    "list": ("gateway.cli._workspace", "run_workspace_verb"),
    "call": ("gateway.cli._workspace", "run_workspace_verb"),
    "command": ("gateway.cli._workspace", "run_workspace_verb"),
    "shell": ("gateway.cli._workspace", "run_workspace_verb"),
    "trust": ("gateway.cli._trust", "run_trust"),
    "untrust": ("gateway.cli._trust", "run_trust"),
    **{verb: ("gateway.cli._packages", "run_package_verb") for verb in PACKAGE_VERBS},
    "setup": ("gateway.cli._setup", "run_setup_verb"),
    "config": ("gateway.cli._config", "run_config"),
    "secret": ("gateway.cli._secrets", "run_secret"),
    "auth": ("gateway.cli._auth", "run_auth"),
    "policy": ("gateway.cli._policy", "run_policy"),
    "journal": ("gateway.cli._journal", "run_journal"),
    "logs": ("gateway.cli._logs_server", "run_logs_verb"),
    "serve": ("gateway.cli._serve", "run_serve"),
    "token": ("gateway.cli._token", "run_token"),
    "migrate": ("gateway.cli._migrate", "run_migrate"),
    "audit": ("gateway.cli._audit", "run_audit"),
    "lock": ("gateway.cli._lock", "run_lock"),
    "sync": ("gateway.cli._lock", "run_sync"),
    "doctor": ("gateway.cli._doctor", "run_doctor"),
    "completion": ("gateway.cli._completion", "run_completion"),
    "docs": ("gateway.cli._docs", "run_docs"),
    "session": ("gateway.cli._session_verb", "run_session"),
    "__complete": ("gateway.cli._completion", "run_complete"),
    "outdated": ("gateway.cli._update", "run_outdated"),
    "update": ("gateway.cli._update", "run_update"),
}
"""Verb → (module, function) running it with the parsed arguments and the configuration."""

# Verbs that open a gateway once, print, and end; ``_leave`` ends them.
_ONE_SHOT = ("list", "call", "command")
# Commands that only read the gateway's state: a missing home is not made for them.
_READ_ONLY_VERBS = ("inspect", "status", "audit", "lock", "logs")
# Commands that report on the home, or need none: nothing is checked or made before them.
_HOMELESS = ("doctor", "completion", "docs", "__complete")
# Verbs taking installed packages' ids, which a package's other names resolve to
# (``gateway.cli._names``).
PACKAGE_NAME_VERBS = (
    "trust", "untrust", "inspect", "enable", "disable", "uninstall", "update", "group",
    "ungroup", "prefer", "permissions", "config", "secret", "auth", "policy", "logs", "serve",
    "audit", "migrate",
)  # fmt: skip
# Positional arguments that name something: empty, each would mean the current folder.
_NAMED = ("target", "targets", "source", "id", "ids", "tool", "name", "call")


def _values(args: argparse.Namespace, name: str) -> list[str]:
    """A positional argument's values: one, several (``ID…``), or none."""
    value = getattr(args, name, None)
    if isinstance(value, str):
        return [value]
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _check_arguments(args: argparse.Namespace) -> None:
    for name in _NAMED:
        for value in _values(args, name):
            if not value.strip():
                what = name.upper().removesuffix("S")  # TARGETS, IDS: each one
                raise BadArgument(f"{what} is empty; use `.` for the current folder")
    for name in ("target", "targets", "source"):
        for value in _values(args, name):
            _utf8(value, name.upper())
    if not hasattr(args, "workspace"):
        return
    workspace = args.workspace
    if workspace is None:
        args.workspace = Path.cwd()
        return
    if not workspace.strip():
        raise BadArgument("--workspace is empty; use `.` for the current folder")
    _utf8(workspace, "--workspace")
    args.workspace = Path(workspace)


def _utf8(value: str, what: str) -> None:
    """A path argument must be text: the store, sessions and the protocol keep paths as
    UTF-8, and a name with other bytes would fail deep inside one of them."""
    try:
        os.fsencode(value).decode("utf-8")
    except UnicodeDecodeError:
        raise BadArgument(
            f"{what} {os.fsencode(value)!r} is not valid UTF-8; sessions and the "
            "protocol carry paths as UTF-8 text"
        ) from None


def _printable_output(args: argparse.Namespace) -> None:
    """What people read shows a package's control characters and escape sequences as
    escapes (``gateway.base.printable``), in every verb at once; machine output (``--json``,
    an audit report in another format, the protocol of ``serve``) keeps exact values."""
    from gateway.base import PrintableStream

    machine = bool(getattr(args, "json", False)) or args.verb == "serve"
    machine = machine or getattr(args, "format", None) not in (None, "text")
    if not machine and not isinstance(sys.stdout, PrintableStream):
        sys.stdout = PrintableStream(sys.stdout)
    if not isinstance(sys.stderr, PrintableStream):
        sys.stderr = PrintableStream(sys.stderr)


def _refuse_argument(args: argparse.Namespace, message: str) -> None:
    from gateway.cli import _codes
    from gateway.cli._output import refuse

    refuse(_codes.ARGUMENT_INVALID(message), as_json=bool(getattr(args, "json", False)))


def _verb(name: str, process: bool = False) -> Verb:
    """The verb's implementation, imported now. In a process of its own (``process``),
    the cyclic garbage collector pauses while it loads: importing the host builds hundreds
    of modules' objects (its ~200 dataclasses among them) and none of them is garbage, yet
    the collector would scan them again and again as they are made — 5-6 % of a one-shot
    ``call``'s CPU. What loaded is then frozen out of its reach (``gc.freeze``)."""
    module, function = _VERBS[name]
    if not process or not gc.isenabled():
        run: Verb = getattr(importlib.import_module(module), function)
        return run
    gc.disable()
    try:
        run = getattr(importlib.import_module(module), function)
    finally:
        gc.freeze()
        gc.enable()
    return run


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    streams = sys.stdout, sys.stderr
    _printable_output(args)
    try:
        return _run(args, argv)
    finally:
        if argv is not None:  # an in-process caller (a test, a script) gets its streams back
            sys.stdout, sys.stderr = streams


def _run(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    from gateway.base import GatewayConfig, HomeUnusable, ensure_home
    from gateway.sandbox import make_undumpable

    # Same-user processes (the extensions among them) must not read our environment or
    # memory through /proc; see docs/security.md.
    make_undumpable()
    config = GatewayConfig()
    try:
        _check_arguments(args)
        if args.verb not in _HOMELESS:
            ensure_home(config.home, write=args.verb not in _READ_ONLY_VERBS)
    except BadArgument as problem:
        _refuse_argument(args, str(problem))
        return 2
    except HomeUnusable as unusable:
        from gateway.cli._output import refuse

        refuse(unusable.diagnostic(), as_json=bool(getattr(args, "json", False)))
        return 1
    # `list --packages` reads the state store only: no workspace is opened.
    verb = "status" if args.verb == "list" and args.packages else args.verb
    try:
        with _compiled(verb) if argv is None else contextlib.nullcontext():
            if args.verb in PACKAGE_NAME_VERBS:
                from gateway.cli._names import resolve_package_names

                resolve_package_names(args, config.home)
            code = _in_session(args, config) if verb in _ONE_SHOT else None
            if code is None:
                code = _verb(verb, process=argv is None)(args, config)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader of our output went away (`gateway list | head`); that is not an error.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
        return 0
    except Exception as problem:
        code = explained(args, problem)
        if code is None:
            raise
        return code
    if argv is None and args.verb in _ONE_SHOT:
        _leave(code)
    return code


def _compiled(verb: str) -> contextlib.AbstractContextManager[None]:
    """In a process of its own, the dataclasses a verb makes — as its modules load and as
    it runs (anyio's backend loads with its event loop) — reuse their generated methods'
    code compiled by an earlier start (``gateway.cli._compiled``)."""
    from gateway.cli._compiled import compiled_once

    return compiled_once(_VERBS[verb][0])


def _in_session(args: argparse.Namespace, config: GatewayConfig) -> int | None:
    """The command run in the workspace's warm session (docs/session.md); None: run it
    here, one-shot — with a ``session.unreachable`` note when the session could not be
    used."""
    from gateway.cli._session_client import Fallback, run_in_session

    if not args.workspace.is_dir():
        return None  # the one-shot run says so
    try:
        served = run_in_session(args, config.home)
    except OSError as error:
        served = Fallback(str(error))
    if isinstance(served, int):
        return served
    if served.why is not None:
        from gateway.cli import _codes

        args.notes = [
            _codes.SESSION_UNREACHABLE(
                f"the workspace's session could not be used ({served.why}); ran one-shot"
            )
        ]
    return None


def explained(args: argparse.Namespace, problem: Exception) -> int | None:
    """What a verb's failure says and its exit code (None: not one the CLI explains). The
    warm session explains its commands' failures the same way."""
    if isinstance(problem, Usage):
        error(args, str(problem))
        return 2
    if isinstance(problem, BadArgument):
        _refuse_argument(args, str(problem))
        return 2
    if _store_failure(problem):
        error(args, str(problem))
        return 1
    return None


def _leave(code: int) -> NoReturn:
    """Exit at once, without the interpreter's teardown of the ~450 modules a gateway loads
    (15-20 % of a ``gateway call``'s time). Only for the process's own command line (``argv``
    None: never when ``main`` is called in a process that goes on): by then the gateway has
    stopped every process it started, closed its session and logs, and nothing is left to
    flush but stdout and stderr."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone: nothing reaches it
            stream.flush()
    os._exit(code)


def _store_failure(problem: Exception) -> bool:
    """A state store or session store that cannot be used (exit 1). Their classes are
    imported only here: when one of them was raised, its module is loaded already."""
    from gateway.model import SessionNotFound
    from gateway.store import StoreError

    return isinstance(problem, SessionNotFound | StoreError)
