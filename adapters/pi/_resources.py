"""Pi's resource resolution: manifest entries, globs, override patterns, convention dirs.

Mirrors pi's package manager (``package-manager.ts``: ``collectFilesFromManifestEntries``,
``collectResourceFiles``, ``applyPatterns``), reading files only:

* an entry starting with ``!``, ``+`` or ``-`` is an override pattern; any other entry is
  a source: a plain path, or a glob expanded against the package files;
* a source file is taken as is; a source directory is scanned by resource type
  (extensions: ``*.ts``/``*.js`` plus subfolders with ``index.ts``/``index.js`` or their
  own ``pi.extensions``; skills: root ``*.md`` plus nested ``SKILL.md``; prompts:
  ``*.md``; themes: ``*.json``);
* then ``!glob`` excludes, ``+path`` force-includes, ``-path`` force-excludes.

Unlike pi, symlinked directories are not descended into and ``.gitignore`` files are
not honoured; dot entries and ``node_modules`` are skipped as pi does.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Final

from adapters import _codes as adapters_codes
from adapters import _glob
from adapters._files import Inspection, normalize_relative, safe_is_dir, safe_is_file

__all__ = ["RESOURCE_TYPES", "Resources", "is_override"]

RESOURCE_TYPES: Final = ("extensions", "skills", "prompts", "themes")
_SUFFIXES: Final = {"prompts": (".md",), "themes": (".json",)}


def is_override(entry: str) -> bool:
    return entry.startswith(("!", "+", "-"))


@dataclass(slots=True)
class Resources:
    inspection: Inspection
    _walked: list[str] | None = field(default=None)

    def from_manifest(self, kind: str, entries: list[str]) -> list[str]:
        """The files ``pi.<kind>`` selects, in collection order."""
        paths: list[str] = []
        for index, entry in enumerate(entries):
            if is_override(entry):
                continue
            label = f"package.json pi.{kind}[{index}]"
            if _glob.has_magic(entry):
                matches = [rel for rel in self._all() if _glob.match(entry, rel)]
                if not matches:
                    self.inspection.add(
                        adapters_codes.ENTRY_NOT_FOUND(f"{label}: {entry!r} matches nothing")
                    )
                paths += matches
            elif (rel := self.inspection.resolve(entry, label=label)) is not None:
                paths.append(rel)
        files = self._from_paths(paths, kind)
        return _apply_overrides(files, [e for e in entries if is_override(e)])

    def from_convention(self, kind: str) -> list[str] | None:
        """Files in the ``<kind>/`` convention directory; None when there is none."""
        if not safe_is_dir(self.inspection.root / kind) or not self.inspection.inside(
            self.inspection.root / kind
        ):
            return None
        return self._scan(kind, kind)

    def _all(self) -> list[str]:
        if self._walked is None:
            self._walked = [rel for rel, _ in self.inspection.walk()]
        return self._walked

    def _from_paths(self, paths: list[str], kind: str) -> list[str]:
        files: list[str] = []
        for rel in paths:
            path = self.inspection.root / rel
            found = [rel] if safe_is_file(path) else self._scan(rel, kind)
            files += [f for f in found if f not in files]
        return files

    def _scan(self, directory: str, kind: str) -> list[str]:
        directory = "" if directory == "." else directory
        if kind == "extensions":
            return self._extension_entries(directory)
        if kind == "skills":
            return self._skill_entries(directory)
        return [
            rel
            for rel, is_dir in self.inspection.walk(directory)
            if not is_dir and rel.endswith(_SUFFIXES[kind])
        ]

    def _skill_entries(self, directory: str) -> list[str]:
        # Loose .md files directly in the directory are skills; deeper, only SKILL.md.
        found: list[str] = []
        for rel, is_dir in self.inspection.walk(directory):
            if is_dir:
                continue
            top_level = posixpath.dirname(rel) == directory
            name = posixpath.basename(rel)
            if (top_level and name.endswith(".md")) or (not top_level and name == "SKILL.md"):
                found.append(rel)
        return found

    def _extension_entries(self, directory: str) -> list[str]:
        own = self._extension_dir_entries(directory)
        if own is not None:
            return own
        found: list[str] = []
        for rel, is_dir in self.inspection.walk(directory, recursive=False):
            if not is_dir and rel.endswith((".ts", ".js")):
                found.append(rel)
            elif is_dir:
                found += self._extension_dir_entries(rel) or []
        return found

    def _extension_dir_entries(self, directory: str) -> list[str] | None:
        """A directory's own entries: its package.json ``pi.extensions``, else index.ts,
        else index.js; None when it has none (pi's ``resolveExtensionEntries``)."""
        nested = posixpath.join(directory, "package.json")
        if safe_is_file(self.inspection.root / nested):
            # Quiet, as in pi: a nested package.json that does not parse, or entries
            # that do not exist, just mean "no entries of its own". Only files inside
            # the package count.
            data = Inspection(self.inspection.root).read_json_object(nested)
            pi = data.get("pi") if data else None
            declared = pi.get("extensions") if isinstance(pi, dict) else None
            entries = [
                rel
                for raw in (declared if isinstance(declared, list) else [])
                if isinstance(raw, str)
                and (rel := normalize_relative(posixpath.join(directory, raw))) is not None
                and safe_is_file(self.inspection.root / rel)
                and self.inspection.inside(self.inspection.root / rel)
            ]
            if entries:
                return list(dict.fromkeys(entries))
        for index in ("index.ts", "index.js"):
            candidate = posixpath.join(directory, index)
            if safe_is_file(self.inspection.root / candidate):
                return [candidate]
        return None


def _apply_overrides(files: list[str], patterns: list[str]) -> list[str]:
    excludes = [p[1:] for p in patterns if p.startswith("!")]
    force_in = [p[1:] for p in patterns if p.startswith("+")]
    force_out = [p[1:] for p in patterns if p.startswith("-")]
    result = [f for f in files if not _matches_glob(f, excludes)]
    result += [f for f in files if f not in result and _matches_exact(f, force_in)]
    order = {f: i for i, f in enumerate(files)}
    return sorted((f for f in result if not _matches_exact(f, force_out)), key=lambda f: order[f])


def _candidates(rel: str) -> list[str]:
    # A SKILL.md is also matched through its folder, as pi does.
    names = [rel, posixpath.basename(rel)]
    if posixpath.basename(rel) == "SKILL.md":
        parent = posixpath.dirname(rel)
        names += [parent, posixpath.basename(parent)]
    return names


def _matches_glob(rel: str, patterns: list[str]) -> bool:
    return any(_glob.match(p, name) for p in patterns for name in _candidates(rel) if name)


def _matches_exact(rel: str, patterns: list[str]) -> bool:
    targets = {rel}
    if posixpath.basename(rel) == "SKILL.md":
        targets.add(posixpath.dirname(rel))
    return any(p.removeprefix("./") in targets for p in patterns)
