"""Files a migration writes: JSON documents, and the package's skills and prompt templates
copied where the target finds them.

A skill's or prompt template's name is the package's to choose (a ``SKILL.md`` names
itself), and here it becomes a folder or file name. So every path is made by
``safe_join`` under the output folder, from names that ``encode_name`` made harmless
(``migrate.name_renamed`` says which), one file per name whatever the file system's case
rules (``migrate.name_refused`` says which clashed): nothing is written outside ``--out``,
and nothing written is written over.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gateway.base import FileNames, PathRefused, encode_name, name_problem, safe_join
from gateway.migrate._codes import MIGRATE_NAME_REFUSED, MIGRATE_NAME_RENAMED, MIGRATE_NOT_CARRIED
from gateway.migrate._copy import Skipped, copy_file, copy_tree
from gateway.migrate._model import Migration

__all__ = ["SKILL_NAME", "copy_package", "copy_prompts", "copy_skills", "write_json", "write_text"]

SKILL_NAME = re.compile(r"^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
"""The Agent Skills name rule (1-64 of a-z 0-9 -, no leading, trailing or double hyphen),
which also names the skill's folder."""
_SKIPPED = frozenset({"node_modules", ".git", "__pycache__"})


def write_json(migration: Migration, where: str | Sequence[str], data: Any) -> Path:
    return write_text(migration, where, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_text(migration: Migration, where: str | Sequence[str], text: str) -> Path:
    """``where``: one file name, or the names of the folders and file under the output.
    Raises ``PathRefused`` for a name that is not harmless or a path leaving the output."""
    path = safe_join(migration.out, *([where] if isinstance(where, str) else where))
    path.parent.mkdir(parents=True, exist_ok=True)
    # Replaces a file the package brought (nanobot's copy), never writes through a link.
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(path, flags, 0o666), "w", encoding="utf-8") as out:
        out.write(text)
    migration.files.append(path)
    return path


def _package_file(migration: Migration, relative: object) -> Path | None:
    """A file the package names, if it is inside the package."""
    if not isinstance(relative, str):
        return None
    root = migration.package.root.resolve()
    path = (root / relative).resolve()
    return path if root in path.parents and path.is_file() else None


def _note_skipped(migration: Migration, where: str, skipped: list[Skipped]) -> None:
    for item in skipped:
        code = MIGRATE_NAME_REFUSED if item.clash else MIGRATE_NOT_CARRIED
        migration.note(code, f"{where}: {item.relative!r} not copied: {item.reason}")


def copy_package(migration: Migration) -> None:
    """The whole package into the output (nanobot's target)."""
    root = migration.package.root
    skipped = copy_tree(
        root, migration.out, package_root=root, skip=frozenset({".git", "__pycache__"})
    )
    _note_skipped(migration, "the package's files", skipped)


class _Placing:
    """Where the contributions of one kind go: one folder under the output, one name each."""

    def __init__(self, migration: Migration, kind: str, into: Sequence[str]) -> None:
        self.migration, self.kind, self.into = migration, kind, tuple(into)
        self.names = FileNames()

    def place(self, name: str, written: str, problem: str | None) -> Path | None:
        """The path of ``written`` (the file or folder name made from ``name``), or None
        when it clashes or leaves the output (each said)."""
        shown = "/".join((*self.into, written))
        clash = self.names.claim(written, name)
        if clash is not None:
            why = (
                f"another {self.kind} of that name is written there already"
                if clash == name
                else f"that is the same file as {self.kind} {clash!r}'s (names that differ only "
                "in case are one file on macOS and Windows)"
            )
            self.refuse(name, f"it would be {shown}: {why}")
            return None
        try:
            path = safe_join(self.migration.out, *self.into, written)
        except PathRefused as error:
            self.refuse(name, error.problem)
            return None
        if problem is not None:
            self.migration.note(
                MIGRATE_NAME_RENAMED,
                f"{self.kind} {name!r} is written as {shown}: as a file name, {problem}",
                name,
            )
        return path

    def refuse(self, name: str, why: str) -> None:
        self.migration.note(MIGRATE_NAME_REFUSED, f"{self.kind} {name!r} left out: {why}", name)


def copy_skills(
    migration: Migration, into: Sequence[str], *, strict_names: bool, how: str
) -> list[str]:
    """Each skill of the package as ``<into>/<name>/SKILL.md`` with the files beside it; with
    ``strict_names`` a skill whose name breaks the Agent Skills rule is left out (returned),
    else a name that is no harmless folder name is encoded."""
    placing = _Placing(migration, "skill", into)
    refused = []
    root = migration.package.root.resolve()
    for contribution in migration.package.entry.contributions:
        if contribution.kind != "skill":
            continue
        source = _package_file(migration, contribution.detail.get("path"))
        if source is None:
            continue
        name = contribution.name
        if strict_names and not SKILL_NAME.match(name):
            refused.append(name)
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"skill {name!r}: its name breaks the Agent Skills rule (a-z, 0-9, "
                "-, at most 64), which the target requires of a skill folder",
                name,
            )
            continue
        if strict_names and (problem := name_problem(name)) is not None:
            # The rule makes the folder the name: it cannot be renamed.
            refused.append(name)
            placing.refuse(name, f"the target names its folder {name!r}, and {problem}")
            continue
        folder = encode_name(name, fallback="skill")
        target = placing.place(name, folder, name_problem(name))
        if target is None:
            continue
        if source.name == "SKILL.md" and source.parent != root:
            skipped = copy_tree(source.parent, target, package_root=root, skip=_SKIPPED)
            _note_skipped(migration, f"skill {name!r}", skipped)
        else:  # a loose skill file (or SKILL.md at the package root): the file alone
            target.mkdir(parents=True, exist_ok=True)
            copy_file(str(source), target / "SKILL.md")
        migration.files.append(target / "SKILL.md")
        migration.carry("skill", name, how if folder == name else f"{how} as `{folder}`")
    return refused


def copy_prompts(migration: Migration, into: Sequence[str], how: str) -> None:
    """Each prompt template as ``<into>/<name>.md`` (the host names it by its file)."""
    placing = _Placing(migration, "prompt", into)
    for contribution in migration.package.entry.contributions:
        if contribution.kind != "prompt":
            continue
        source = _package_file(migration, contribution.detail.get("path"))
        if source is None:
            continue
        name = contribution.name
        written = encode_name(name, ".md", fallback="prompt")
        problem = name_problem(name) or name_problem(f"{name}.md")
        target = placing.place(name, written, problem)
        if target is None:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            copy_file(str(source), target)
        except FileExistsError:  # a file system that folds names in a way claims did not
            placing.refuse(name, f"{written} is written already")
            continue
        migration.files.append(target)
        renamed = (
            "" if written == f"{name}.md" else f" as `{written}` (its command: /{written[:-3]})"
        )
        migration.carry("prompt", name, how + renamed)
