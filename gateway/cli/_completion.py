"""``gateway completion bash|zsh|fish [--install]``: a completion script made from the
parser (every verb and its options), completing what a person may type for a package (its id or
a name it answers to) through the hidden ``gateway __complete ids|prefer``, which reads the
state store read-only and imports no host.

The scripts themselves are made in ``gateway.cli._completion_scripts``."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli import _codes
from gateway.cli._completion_scripts import VerbWords, script
from gateway.cli._output import refuse
from gateway.cli._parser_tools import SHELLS

__all__ = ["VerbWords", "install_path", "run_complete", "run_completion", "verb_words"]

_WORD = re.compile(r"[\w@.:/+-][\w@.:/+~=-]*")
"""A name completion offers: one a shell's completion takes as it is (``compgen -W``
expands ``$``, backquotes and globs in its words; a discovered extension is named by a
folder)."""
_FILES = ("DIR", "PATH", "SRC", "PKG", "FILE")
"""Metavars naming something on disk: completed as files too."""
_NAMES = {"prefer": "prefer"}
"""Verbs whose ``ID`` takes more than an installed package's names: the ``gateway
__complete`` list completing it (``ids`` elsewhere)."""


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
            if "ID" in metavar.split("|"):
                verb.names = _NAMES.get(name, "ids")
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
    """``gateway __complete ids``: every name an installed package answers to, one a line —
    its id and the names recorded at install (its npm name, its folder's), which every verb
    taking an ``ID`` resolves (``gateway.cli._names``). ``__complete prefer``: those and the
    discovered extensions already preferred (``pi:NAME``): ``prefer`` replaces its list, so
    a line that keeps them names them again. Nothing when there is no usable store
    (completion offers nothing rather than an error)."""
    from gateway.store import read_package_names

    if not config.home.is_dir():
        return 0
    names, preferred = read_package_names(config.home)
    if args.what == "prefer":
        from gateway.host import discovered_owner

        names += [name for name in preferred if discovered_owner(name) is not None]
    for name in sorted(set(names)):
        if _WORD.fullmatch(name):
            print(name)
    return 0
