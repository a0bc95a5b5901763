"""``gateway lock`` and ``gateway sync``: a home written down as ``gateway.lock``, and a
home made to match one (``gateway.packages._lockfile``, ``gateway.packages._sync``)."""

from __future__ import annotations

import argparse
import functools
import shlex
from pathlib import Path

from gateway.base import GatewayConfig, counted, terminal_progress
from gateway.cli._output import print_diagnostics, print_json
from gateway.cli._refusal import refuse
from gateway.packages import (
    LOCK_HOME_DIFFERS,
    LOCK_WRITE_FAILED,
    LOCKFILE_NAME,
    LockfileError,
    SyncRefused,
    collect_garbage,
    load_adapters,
    lock_home,
    prepare_install,
    read_lockfile,
    render_lockfile,
    sync,
    write_lockfile,
)

__all__ = ["run_lock", "run_sync"]


def run_lock(args: argparse.Namespace, config: GatewayConfig) -> int:
    path = Path(args.out) if args.out else Path.cwd() / LOCKFILE_NAME
    lock = lock_home(config.home)
    try:
        if path.is_dir():
            raise LockfileError(
                LOCK_WRITE_FAILED(f"cannot write {path}: it is a folder", hint="--out PATH")
            )
        write_lockfile(path, render_lockfile(lock))
    except LockfileError as error:
        return refuse(args, str(error), [error.diagnostic])
    ids = sorted(p.id for p in lock.packages)
    if args.json:
        print_json({"lockfile": str(path), "packages": ids})
    else:
        print(f"wrote {path}: {counted(len(ids), 'package')}")
        for package in sorted(lock.packages, key=lambda p: p.id):
            if package.version:
                print(f"  {package.id} {package.version} ({package.source.kind})")
            else:
                print(f"  {package.id} ({package.source.kind}; no version: pinned by content)")
    return 0


def run_sync(args: argparse.Namespace, config: GatewayConfig) -> int:
    path = Path(args.lockfile) if args.lockfile else Path.cwd() / LOCKFILE_NAME
    try:
        lock = read_lockfile(path)
    except LockfileError as error:
        return refuse(args, str(error), [error.diagnostic])
    accept = "gateway sync --accept"
    if args.lockfile:
        accept += f" --lockfile {shlex.quote(args.lockfile)}"
    collect_garbage(config.home)
    adapters = load_adapters()
    try:
        with terminal_progress(quiet=args.json) as progress:
            report = sync(
                config.home,
                lock,
                inspector=adapters.inspect,
                frozen=args.frozen,
                accept=args.accept,
                prepare=functools.partial(
                    prepare_install, adapters, config.home, progress=progress
                ),
                progress=progress,
                accept_command=accept,
            )
    except SyncRefused as refused:
        subject = "sync stopped part way" if refused.partial else "sync refused; nothing changed"
        shown = refused.diagnostics
        return refuse(args, f"{subject}: {refused}", shown, shown=shown, subject=subject)
    if args.frozen and report.differences:
        report.diagnostics.append(
            LOCK_HOME_DIFFERS(f"the home differs from {path}: {'; '.join(report.differences)}")
        )
    failed = args.frozen and bool(report.differences)
    if args.json:
        print_json({"lockfile": str(path), **report.to_dict()})
        return 1 if failed else 0
    for verb, ids in (("installed", report.installed), ("updated", report.updated),
                      ("removed", report.removed), ("unchanged", report.unchanged)):  # fmt: skip
        if ids:
            print(f"{verb}: {', '.join(ids)}")
    if report.decisions:
        print("applied the lockfile's decisions:" if args.accept else "not applied (trust,"
              " grants, enabled, groups are yours to accept):")  # fmt: skip
        for line in grouped_decisions(report.decisions):
            # Applied: said as done; pending: the command that applies it.
            print(f"  {done_decision(line)}" if args.accept else f"  gateway {line}")
        if not args.accept:
            print(f"accept them all: {accept}")
    print_diagnostics([d for d in report.diagnostics if d.code != "lock.decisions_pending"])
    return 1 if failed else 0


_DONE = {"trust": "trusted", "untrust": "untrusted", "enable": "enabled",
         "disable": "disabled", "ungroup": "ungrouped"}  # fmt: skip


def done_decision(line: str) -> str:
    """A decision ``grouped_decisions`` gives as a command (``trust A B``, ``permissions A
    GRANT [--revoke]``, ``group NAME A``), said as done: ``trusted A, B``, ``granted GRANT
    to A``, ``revoked GRANT from A``, ``put A in group NAME``. Words keep their quoting."""
    verb, _, rest = line.partition(" ")
    words = [shlex.quote(word) for word in shlex.split(rest)]
    if verb in _DONE:
        return f"{_DONE[verb]} {', '.join(words)}"
    if verb == "permissions" and len(words) == 3 and words[2] == "--revoke":
        return f"revoked {words[1]} from {words[0]}"
    if verb == "permissions" and len(words) == 2:
        return f"granted {words[1]} to {words[0]}"
    if verb == "group" and len(words) == 2:
        return f"put {words[1]} in group {words[0]}"
    return f"applied: gateway {line}"  # a decision this wording does not know yet


_BY_ID = ("untrust", "trust", "disable", "enable")
"""Verbs that take several ids (docs/cli.md, Several ids): one line each for all packages."""


def grouped_decisions(lines: list[str]) -> list[str]:
    """The lockfile's decisions as few commands: `trust A B C` rather than a line per
    package (a home of 30 packages is 60 lines otherwise), trust first and enable last, as
    each package's own lines are; grants and groups stay one a line."""
    merged: dict[str, list[str]] = {}
    single = []
    for line in lines:
        verb, _, rest = line.partition(" ")
        if verb in _BY_ID and " " not in rest:
            merged.setdefault(verb, []).append(rest)
        else:
            single.append(line)
    first = [f"{verb} {' '.join(merged[verb])}" for verb in ("untrust", "trust") if verb in merged]
    last = [f"{verb} {' '.join(merged[verb])}" for verb in ("disable", "enable") if verb in merged]
    return [*first, *single, *last]
