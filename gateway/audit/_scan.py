"""The static code scan: which files are the package's code, which of them its entry points
reach, and the risk signals a reviewer wants before trusting it.

Everything here reads text and runs nothing. The package is hostile input: file counts,
sizes and nesting are capped (``Budget``), links are not followed out of the package, and
a scan that hits its budget says so (``audit.scan_truncated``). The signals are heuristics
and are reported as such, each with the file and line that triggered it.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gateway.audit import _codes
from gateway.audit._model import Risk
from gateway.audit._signals import TextFile, code_risks, text_risks
from gateway.audit._support import SourceFile
from gateway.audit._typosquat import typosquat_risks
from gateway.base import Diagnostic, Severity
from gateway.model import CatalogEntry

__all__ = ["Budget", "Scan", "scan_package"]

_CODE = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".py", ".sh", ".bash")
"""Code the scan reads; hook scripts (``.sh``) run with the package's grants too."""
_SKIP_DIRS = frozenset({".git", "__pycache__", ".venv", "venv", "dist-types", ".hg", ".svn"})
_INSTALL_SCRIPTS = ("preinstall", "install", "postinstall", "prepare")
_TS_FOR_JS = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",)}
_JS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx")


@dataclass(frozen=True, slots=True)
class Budget:
    files: int = 3_000
    file_bytes: int = 2 * 1024 * 1024
    total_bytes: int = 32 * 1024 * 1024
    dependency_entries: int = 60_000
    """Directory entries looked at under node_modules (names only, for native addons)."""


@dataclass(slots=True)
class Scan:
    sources: list[SourceFile] = field(default_factory=list)
    risks: list[Risk] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def reachable(self) -> list[SourceFile]:
        return [source for source in self.sources if source.reachable]


def scan_package(entry: CatalogEntry, budget: Budget | None = None) -> Scan:
    budget = budget or Budget()
    root = Path(entry.root)
    scan = Scan()
    texts, truncated = _read_own_code(root, budget)
    reached = _reachable(root, entry.entries, texts)
    scan.sources = [SourceFile(rel, text, rel in reached) for rel, text in texts.items()]
    if truncated:
        scan.diagnostics.append(
            _codes.SCAN_TRUNCATED(
                f"{entry.id}: the code scan stopped at {budget.files} files or "
                f"{budget.total_bytes // 1_048_576} MB; later files were not read",
                package=entry.id,
            )
        )
    scan.risks += _install_scripts(root, budget)
    scan.risks += _native_addons(root, budget)
    scan.risks += typosquat_risks(root, entry.name)
    scan.risks += _code_risks(scan.sources, _declared_variables(entry))
    scan.risks += text_risks([*_read_texts(root, budget), *scan.sources])
    return scan


# --------------------------------------------------------------------------- files


def _read_own_code(root: Path, budget: Budget) -> tuple[dict[str, str], bool]:
    """Code files outside node_modules, entry-like ones first, within the budget."""
    found: list[str] = []
    for folder, subfolders, names in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIP_DIRS and d != "node_modules")
        for name in sorted(names):
            if name.endswith(_CODE) and not name.endswith(".d.ts"):
                rel = name if rel_folder == "." else f"{rel_folder}/{name}"
                found.append(rel.replace(os.sep, "/"))
        if len(found) > budget.files:
            break
    truncated = len(found) > budget.files
    texts: dict[str, str] = {}
    spent = 0
    for rel in found[: budget.files]:
        path = root / rel
        try:
            if path.is_symlink() or not path.is_file():
                continue
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(min(budget.file_bytes, budget.total_bytes - spent))
        except OSError:
            continue
        spent += len(text)
        texts[rel] = text
        if spent >= budget.total_bytes:
            truncated = True
            break
    return texts, truncated


_TEXT = (".md", ".json", ".yaml", ".yml", ".txt")
_TEXT_FILES = 500


def _read_texts(root: Path, budget: Budget) -> list[TextFile]:
    """Text a model may read (skills, prompts, manifests), outside node_modules: fewer
    files and bytes than code."""
    texts: list[TextFile] = []
    for folder, subfolders, names in os.walk(root):
        if len(texts) >= _TEXT_FILES:
            break
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIP_DIRS and d != "node_modules")
        for name in sorted(names):
            path = Path(folder) / name
            if not name.endswith(_TEXT) or path.is_symlink() or len(texts) >= _TEXT_FILES:
                continue
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(budget.file_bytes // 8)
            except OSError:
                continue
            texts.append(TextFile(path.relative_to(root).as_posix(), text))
    return texts


_IMPORT = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(["'])(\.{1,2}/[^"'\n]{0,300})\1"""
)
_PY_FROM = re.compile(r"^\s*from\s+(\.+[\w.]*|[A-Za-z_][\w.]*)\s+import\b", re.MULTILINE)
_PY_IMPORT = re.compile(r"^\s*import\s+([A-Za-z_][\w.]*)", re.MULTILINE)


def _reachable(root: Path, entries: Iterable[str], texts: dict[str, str]) -> set[str]:
    """Files reached from the entries by relative imports (JavaScript and TypeScript as
    Node and jiti resolve them; Python by module name inside the package)."""
    queue = [normal for rel in entries if (normal := posixpath.normpath(rel)) in texts]
    seen: set[str] = set()
    while queue:
        current = queue.pop()
        if current in seen:
            continue
        seen.add(current)
        text = texts[current]
        if current.endswith(".py"):
            targets = _python_targets(current, text, texts)
        else:
            base = posixpath.dirname(current)
            targets = [
                found
                for match in _IMPORT.finditer(text)
                if (found := _resolve_js(posixpath.join(base, match.group(2)), texts))
            ]
        queue.extend(target for target in targets if target not in seen)
    return seen


def _resolve_js(spec: str, texts: dict[str, str]) -> str | None:
    path = posixpath.normpath(spec)
    if path.startswith(".."):
        return None
    stem, suffix = posixpath.splitext(path)
    candidates = [path]
    candidates += [stem + alt for alt in _TS_FOR_JS.get(suffix, ())]
    candidates += [path + ext for ext in _JS_SUFFIXES]
    candidates += [f"{path}/index{ext}" for ext in _JS_SUFFIXES]
    return next((c for c in candidates if c in texts), None)


def _python_targets(current: str, text: str, texts: dict[str, str]) -> list[str]:
    names = _PY_FROM.findall(text) + _PY_IMPORT.findall(text)
    package = posixpath.dirname(current)
    targets = []
    for name in names:
        if name.startswith("."):
            dots = len(name) - len(name.lstrip("."))
            base = package
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            module = name.lstrip(".").replace(".", "/")
            path = posixpath.join(base, module) if module else base
        else:
            path = name.replace(".", "/")
        for candidate in (f"{path}.py", f"{path}/__init__.py"):
            if candidate in texts:
                targets.append(candidate)
    return targets


# --------------------------------------------------------------------------- risks


def _package_json(path: Path) -> dict[str, object] | None:
    try:
        if path.stat().st_size > 1_048_576:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _install_scripts(root: Path, budget: Budget) -> list[Risk]:
    risks = []
    manifests = [root / "package.json"]
    modules = root / "node_modules"
    if modules.is_dir() and not modules.is_symlink():
        manifests += _dependency_manifests(modules, budget)
    for manifest in manifests:
        data = _package_json(manifest)
        scripts = data.get("scripts") if data else None
        if not isinstance(scripts, dict):
            continue
        rel = manifest.relative_to(root).as_posix()
        # npm runs `prepare` for the package itself (and git dependencies), not for
        # dependencies installed from a registry tarball.
        names = _INSTALL_SCRIPTS if rel == "package.json" else _INSTALL_SCRIPTS[:3]
        for name in names:
            command = scripts.get(name)
            if isinstance(command, str) and command.strip():
                owner = "the package" if rel == "package.json" else f"dependency {rel[13:-13]}"
                # npm runs `prepare` only for git and folder installs: build tooling.
                level = Severity.INFO if name == "prepare" else _codes.INSTALL_SCRIPT.severity
                risks.append(
                    Risk(
                        "install_script",
                        _codes.INSTALL_SCRIPT.code,
                        level.value,
                        f"{owner} declares an npm `{name}` script (never run by the gateway)",
                        rel,
                        None,
                        command.strip()[:120],
                    )
                )
    return risks


def _dependency_manifests(modules: Path, budget: Budget) -> list[Path]:
    """``node_modules/<name>/package.json`` and ``node_modules/@scope/<name>/package.json``,
    nested ones too, within the budget."""
    found = []
    looked = 0
    for folder, subfolders, names in os.walk(modules):
        looked += len(subfolders) + len(names)
        if looked > budget.dependency_entries:
            break
        here = Path(folder)
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIP_DIRS)
        parent = here.parent
        is_package = parent.name == "node_modules" or (
            parent.name.startswith("@") and parent.parent.name == "node_modules"
        )
        if "package.json" in names and is_package:
            found.append(here / "package.json")
    return found


def _native_addons(root: Path, budget: Budget) -> list[Risk]:
    risks: list[Risk] = []
    reported: set[str] = set()
    looked = 0
    for folder, subfolders, names in os.walk(root):
        looked += len(subfolders) + len(names)
        if looked > budget.dependency_entries:
            break
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIP_DIRS)
        rel_folder = Path(folder).relative_to(root).as_posix()
        for name in names:
            if not (name.endswith((".node", ".so", ".pyd")) or name == "binding.gyp"):
                continue
            owner = _owner(rel_folder)
            if owner in reported:
                continue
            reported.add(owner)
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            what = "builds" if name == "binding.gyp" else "ships"
            risks.append(
                Risk(
                    "native_addon",
                    _codes.NATIVE_ADDON.code,
                    _codes.NATIVE_ADDON.severity.value,
                    f"{owner} {what} a native addon ({name})",
                    rel,
                )
            )
    return risks


def _owner(rel_folder: str) -> str:
    parts = rel_folder.split("/")
    if "node_modules" not in parts:
        return "the package"
    index = len(parts) - 1 - parts[::-1].index("node_modules")
    name = parts[index + 1 : index + 3]
    scoped = name and name[0].startswith("@")
    return "dependency " + "/".join(name[:2] if scoped else name[:1])


_ENV_READ = re.compile(
    r"""process\.env(?:\.([A-Z][A-Z0-9_]{2,})|\[\s*["']([A-Z][A-Z0-9_]{2,})["']\s*\])(?!\s*=[^=])"""
    r"""|os\.environ(?:\.get\(\s*|\[\s*)["']([A-Z][A-Z0-9_]{2,})["']"""
    r"""|os\.getenv\(\s*["']([A-Z][A-Z0-9_]{2,})["']"""
)
_SECRET_LIKE = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|PRIVATE")
_OBFUSCATED = re.compile(
    r"\b_0x[0-9a-f]{4,}\b|(?:\\x[0-9a-fA-F]{2}){24,}|atob\(\s*['\"][A-Za-z0-9+/=]{200,}"
)


def _declared_variables(entry: CatalogEntry) -> set[str]:
    names = set(entry.secrets)
    names |= {d.name for d in entry.dependencies if d.kind == "environment"}
    names |= {key.upper() for key in entry.config_keys}
    return names


def _excerpt(text: str, start: int) -> str:
    end = text.find("\n", start)
    return " ".join(text[start : end if end >= 0 else len(text)].split())[:100]


def _code_risks(sources: Sequence[SourceFile], declared: set[str]) -> list[Risk]:
    risks: list[Risk] = []
    secrets: set[str] = set()
    risks += code_risks(sources)
    for source in sources:
        text = source.text
        for match in _ENV_READ.finditer(text):
            name = next(group for group in match.groups() if group)
            if name in declared or name in secrets or not _SECRET_LIKE.search(name):
                continue
            secrets.add(name)
            risks.append(
                Risk("undeclared_secret", _codes.UNDECLARED_SECRET.code,
                     _codes.UNDECLARED_SECRET.severity.value,
                     f"reads ${name}, which the package does not declare", source.path,
                     source.line_of(match.start()), _excerpt(text, match.start()))
            )  # fmt: skip
        risks += _shape_risks(source)
    return risks


def _shape_risks(source: SourceFile) -> list[Risk]:
    text = source.text
    if len(text) < 4_096:
        return []
    lines = text.count("\n") + 1
    obfuscated = _OBFUSCATED.findall(text)
    if len(obfuscated) >= 20:
        code = _codes.OBFUSCATED
        return [Risk("obfuscated", code.code, code.severity.value,
                     f"{source.path} looks obfuscated ({len(obfuscated)} hex-named identifiers "
                     "or escaped strings)", source.path)]  # fmt: skip
    longest = max((len(line) for line in text.splitlines()), default=0)
    if len(text) / lines > 300 or longest > 10_000:
        code = _codes.MINIFIED
        return [Risk("minified", code.code, code.severity.value,
                     f"{source.path} is minified ({lines} lines, longest {longest} characters)",
                     source.path)]  # fmt: skip
    return []
