"""The source files a package's entry points reach: the code that can run when it loads.

``grant_hints`` reads only these, so that a package's tests, type declarations, source maps,
docs and the parts of its dependencies it never imports do not send users to grant
``network`` or ``workspace.write``. The walk is static and reads text only: JavaScript and
TypeScript ``import``/``export … from``/``require``/``import()`` of string literals, resolved
the way Node resolves them (relative files with their extensions and ``index`` files, the
``.js`` a TypeScript source names for its ``.ts``, bare specifiers through ``node_modules``
and each package's ``exports``/``module``/``main``); Python ``import``/``from … import``
resolved against the entry's folder and the package root. A specifier it cannot resolve (a
computed one, a built-in module) adds nothing. Every path stays under the package root;
the number of files is bounded.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path

__all__ = ["reachable_sources"]

_JS = (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx")
_DECLARATION = re.compile(r"\.d\.[cm]?ts$")
# A module specifier is the string literal after `from` (`import … from`, `export … from`),
# after a bare `import`, or inside `require(` / `import(`: each alternative is a fixed prefix,
# so a hostile file keeps the matcher linear. Bounded repetitions for the same reason.
_JS_SPECIFIER = re.compile(
    r"""(?:\bfrom|\bimport|\brequire\s*\(|\bimport\s*\()\s*(['"])([^'"\n]{1,300})\1"""
)
_PY_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]{0,300})[ \t]+import[ \t]+(\([^)]{0,3000}\)|[\w \t,*]{1,1000})"
    r"|import[ \t]+([\w. \t,]{1,1000}))",
    re.MULTILINE,
)
_CONDITIONS = ("import", "node", "require", "default")
_READ_LIMIT = 512 * 1024
_TOTAL_BYTES = 32 * 1024 * 1024
"""Of all the files the walk reads for their imports."""


def reachable_sources(root: Path, entries: Iterable[str], limit: int) -> list[Path]:
    """The files ``entries`` (paths relative to ``root``) reach, entries first, at most
    ``limit``; those that do not exist are left out."""
    base = root.resolve()
    queue: deque[Path] = deque()
    seen: set[Path] = set()
    for entry in entries:
        found = _file(base, base / entry)
        if found is not None and found not in seen:
            seen.add(found)
            queue.append(found)
    ordered: list[Path] = []
    budget = _TOTAL_BYTES
    while queue and len(ordered) < limit:
        path = queue.popleft()
        ordered.append(path)
        text = _read(path) if budget > 0 else ""
        budget -= len(text)
        for target in _imports(base, path, text):
            if target not in seen and len(seen) < limit:
                seen.add(target)
                queue.append(target)
    return ordered


def _inside(base: Path, path: Path) -> Path | None:
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return None
    return resolved if resolved == base or base in resolved.parents else None


def _file(base: Path, path: Path) -> Path | None:
    found = _inside(base, path)
    if found is None or not found.is_file() or _DECLARATION.search(found.name):
        return None
    return found


def _read(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(_READ_LIMIT)
    except OSError:
        return ""


def _imports(base: Path, path: Path, text: str) -> list[Path]:
    if path.suffix == ".py":
        return _python_imports(base, path, text)
    if path.suffix not in _JS:
        return []
    found = []
    for match in _JS_SPECIFIER.finditer(text):
        target = _resolve_js(base, path.parent, match.group(2))
        if target is not None:
            found.append(target)
    return found


def _resolve_js(base: Path, folder: Path, specifier: str) -> Path | None:
    if specifier.startswith(("./", "../", "/")) or specifier in (".", ".."):
        return _js_file(base, folder / specifier)
    if specifier.startswith("node:") or ":" in specifier:
        return None
    parts = specifier.split("/")
    count = 2 if specifier.startswith("@") else 1
    if len(parts) < count or any(p in ("", ".", "..") for p in parts):
        return None
    name, subpath = "/".join(parts[:count]), "/".join(parts[count:])
    for parent in (folder, *folder.parents):
        if _inside(base, parent) is None:
            break
        package = parent / "node_modules" / name
        if package.is_dir():
            return _package_file(base, package, subpath)
    return None


def _js_file(base: Path, path: Path) -> Path | None:
    candidates = [path]
    if path.suffix in (".js", ".mjs", ".cjs", ".jsx"):  # TypeScript names its output
        candidates.append(path.with_suffix(path.suffix.replace("js", "ts")))
    candidates += [path.with_name(path.name + ext) for ext in _JS]
    candidates += [path / f"index{ext}" for ext in _JS]
    for candidate in candidates:
        found = _file(base, candidate)
        if found is not None and found.suffix in _JS:  # not a JSON or a stylesheet
            return found
    return None


def _package_file(base: Path, package: Path, subpath: str) -> Path | None:
    try:
        manifest = json.loads(_read(package / "package.json") or "{}")
    except ValueError:
        manifest = {}
    manifest = manifest if isinstance(manifest, dict) else {}
    exports = manifest.get("exports")
    key = f"./{subpath}" if subpath else "."
    if isinstance(exports, (str, list)) or (
        isinstance(exports, dict) and not any(str(k).startswith(".") for k in exports)
    ):
        exports = {".": exports}
    if isinstance(exports, dict) and key in exports:
        target = _condition(exports[key])
        if target is not None:
            return _js_file(base, package / target)
    if subpath:
        return _js_file(base, package / subpath)
    for field in ("module", "main"):
        target = manifest.get(field)
        if isinstance(target, str) and target:
            found = _js_file(base, package / target)
            if found is not None:
                return found
    return _js_file(base, package / "index")


def _condition(value: object, depth: int = 0) -> str | None:
    """The file an ``exports`` value names for Node (its import, node, require or default
    condition, nested conditions included)."""
    if isinstance(value, str):
        return value
    if depth > 8:
        return None
    if isinstance(value, list):
        for item in value:
            found = _condition(item, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(value, dict):
        for condition in _CONDITIONS:
            if condition in value:
                found = _condition(value[condition], depth + 1)
                if found is not None:
                    return found
    return None


def _python_imports(base: Path, path: Path, text: str) -> list[Path]:
    found: list[Path] = []
    for match in _PY_IMPORT.finditer(text):
        if match.group(3):  # import a.b, c
            for name in match.group(3).split(","):
                found += _python_module(base, path, name.split(" as ")[0].strip())
            continue
        module, names = match.group(1), match.group(2).strip("() \n").replace("\n", " ")
        found += _python_module(base, path, module)
        for name in names.split(","):  # from package import submodule
            name = name.split(" as ")[0].strip()
            if name and name != "*":
                joined = f"{module}.{name}" if not module.endswith(".") else module + name
                found += _python_module(base, path, joined)
    return found


def _python_module(base: Path, path: Path, module: str) -> list[Path]:
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module[dots:].split(".") if p]
    if dots:
        folders = [path.parents[dots - 1]] if dots - 1 < len(path.parents) else []
    else:
        folders = [path.parent, base]
    if not all(part.isidentifier() for part in parts):
        return []
    for folder in folders:
        target = folder.joinpath(*parts)
        candidates = [target / "__init__.py"]
        if parts:
            candidates.insert(0, target.with_name(parts[-1] + ".py"))
        for candidate in candidates:
            found = _file(base, candidate)
            if found is not None:
                return [found]
    return []
