"""The names a person types for an installed package: its id, or another name it answers to
(its npm name, its folder's — recorded at install, ``StateStore.resolve``). Every verb that
takes a package id gets the id, whichever was typed, before it runs; a name no package
answers to is left as typed, for the verb to refuse with its own words and a "did you mean"
(``known_names``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from gateway.store import STATE_FILE, StateStore

__all__ = ["known_names", "resolve_package_names"]

_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "trust": ("targets",), "untrust": ("targets",), "inspect": ("target",),
    "enable": ("ids",), "disable": ("ids",), "uninstall": ("ids",), "update": ("ids",),
    "group": ("ids",), "ungroup": ("ids",), "prefer": ("ids",), "permissions": ("id",),
    "config": ("id",), "secret": ("id",), "auth": ("id",), "policy": ("id",), "logs": ("id",),
    "serve": ("package",), "audit": ("sources",), "migrate": ("source",),
}  # fmt: skip
"""Verb → the arguments that name installed packages (one value or a list)."""
_SOURCES = ("audit", "migrate")
"""Verbs that take a source first: a name that is an existing file or folder stays one.
Elsewhere (``trust``, ``inspect``: ID|DIR) a package's name wins over a folder of that name
in the current one, as its id does; ``./NAME`` says the folder."""


def resolve_package_names(args: argparse.Namespace, home: Path) -> None:
    """Replace, in ``args``, each name of an installed package with its id."""
    names = _ARGUMENTS.get(args.verb, ())
    if args.verb == "permissions" and (args.grant is not None or args.revoke):
        names = ("id", "permissions")  # the form for several ids: PERM… are ids too
    values = {name: getattr(args, name, None) for name in names}
    typed = {v for value in values.values() for v in _as_list(value)}
    if not typed or not (home / STATE_FILE).exists():
        return
    sources = args.verb in _SOURCES
    with StateStore.open(home) as store:
        known = store.names()
    for name, value in values.items():
        resolved = [_resolved(v, known, sources=sources) for v in _as_list(value)]
        setattr(args, name, resolved if isinstance(value, list) else resolved[0])


def known_names(home: Path) -> dict[str, str]:
    """Every id and alias of the installed packages → its id (for "did you mean")."""
    if not (home / STATE_FILE).exists():
        return {}
    with StateStore.open(home) as store:
        return store.names()


def _resolved(value: str, known: dict[str, str], *, sources: bool) -> str:
    if value in known.values() or value not in known:
        return value
    if value.startswith(("/", "./", "../", "~")) or (sources and Path(value).exists()):
        return value  # a path given on purpose is not a package's name
    return known[value]


def _as_list(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
