"""``gateway completion bash|zsh|fish [--install]``: a completion script made from the
parser (every verb and its options), completing installed package ids through the hidden
``gateway __complete ids``, which reads the state store read-only and imports no host.

The scripts themselves are made in ``gateway.cli._completion_scripts``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli import _codes
from gateway.cli._completion_scripts import VerbWords, script
from gateway.cli._output import refuse
from gateway.cli._parser_tools import SHELLS

__all__ = ["VerbWords", "install_path", "run_complete", "run_completion", "verb_words"]

_FILES = ("DIR", "PATH", "SRC", "PKG", "FILE")
"""Metavars naming something on disk: completed as files too."""


def verb_words() -> list[VerbWords]:
    """Every verb the parser lists (hidden ones aside), with its options and positionals."""
    from gateway.cli._parser import _VERBS

    verbs: list[VerbWords] = []
    for name, (text, add_arguments, _) in _VERBS.items():
        if not text:
            continue
        parser = argparse.ArgumentParser(prog=f"gateway {name}", add_help=True)
        add_arguments(parser)
        verb = VerbWords(name, text)
        for action in parser._actions:
            if action.option_strings:
                verb.options += action.option_strings
                continue
            if action.choices is not None:
                verb.words += [str(choice) for choice in action.choices]
            metavar = str(action.metavar or action.dest).upper()
            verb.ids = verb.ids or "ID" in metavar.split("|")
            verb.files = verb.files or any(kind in metavar for kind in _FILES)
        verbs.append(verb)
    return verbs


def install_path(shell: str, home: Path | None = None) -> Path:
    """Where ``shell`` finds a completion script for ``gateway``."""
    home = home or Path.home()
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return {
        "bash": data / "bash-completion" / "completions" / "gateway",
        "zsh": home / ".zfunc" / "_gateway",
        "fish": config / "fish" / "completions" / "gateway.fish",
    }[shell]


def _shell(args: argparse.Namespace) -> str | None:
    if args.shell:
        return str(args.shell)
    if not args.install:
        return None
    named = Path(os.environ.get("SHELL", "")).name
    return named if named in SHELLS else None


def run_completion(args: argparse.Namespace, config: GatewayConfig) -> int:
    del config  # the script is the installation's; the ids are read when completing
    shell = _shell(args)
    if shell is None:
        found = os.environ.get("SHELL") or "unset"
        said = f"$SHELL is {found}" if args.install else "no SHELL given"
        message = f"{said}; name one of {', '.join(SHELLS)}: gateway completion SHELL"
        refuse(_codes.COMPLETION_SHELL_UNKNOWN(message))
        return 2
    text = script(shell, verb_words())
    if not args.install:
        sys.stdout.write(text)
        return 0
    target = install_path(shell)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        reason = f"cannot write {target}: {error.strerror or error}"
        refuse(_codes.COMPLETION_INSTALL_FAILED(reason))
        return 1
    print(f"wrote the {shell} completion script to {target}")
    if shell == "zsh":
        print("add to ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath); autoload -Uz compinit")
    print("it takes effect in a new shell")
    return 0


def run_complete(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``gateway __complete ids``: the installed ids, one a line; nothing when there is no
    usable store (completion offers nothing rather than an error)."""
    from gateway.store import read_installed_ids

    del args
    if config.home.is_dir():
        for package_id in read_installed_ids(config.home):
            if package_id.isprintable() and not any(c.isspace() for c in package_id):
                print(package_id)
    return 0
