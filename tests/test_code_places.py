"""Where diagnostic codes live: every declared code is raised somewhere, it is declared in
the package that raises it (the lowest of them when several do), and no package imports
another package's ``_codes``.

A code is *raised* by a module that names its constant — ``_codes.NAME``, a name imported
from a ``_codes`` module or from a package that exports it — read from the source and
resolved by importing what it imports. A code that only a child program emits as a string
counts as raised when that program's list names it (``sidecars/lib/diagnostics.mjs``)."""

from __future__ import annotations

import ast
import importlib
import re
import types
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from gateway.base import DiagnosticCode, catalogue
from gateway.base.codes import CATALOGUE_MODULE
from tests.test_layering import FLOORS

ROOT = Path(__file__).resolve().parent.parent
SIDECAR_CODES = ROOT / "sidecars" / "lib" / "diagnostics.mjs"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> Iterator[tuple[str, Path]]:
    for package in ("gateway", "adapters"):
        for path in sorted((ROOT / package).rglob("*.py")):
            yield _module_name(path), path


def _imported_from(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    if path.name != "__init__.py":
        parts.pop()
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])


def _bindings(module: str, path: Path, tree: ast.Module) -> dict[str, object]:
    """What each name a module imports is bound to, for the codes and ``_codes`` modules."""
    bound: dict[str, object] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        try:
            source = importlib.import_module(_imported_from(module, path, node))
        except ImportError:
            continue
        for alias in node.names:
            value = getattr(source, alias.name, None)
            if value is None and isinstance(source, types.ModuleType):
                try:
                    value = importlib.import_module(f"{source.__name__}.{alias.name}")
                except ImportError:
                    continue
            if isinstance(value, (DiagnosticCode, types.ModuleType)):
                bound[alias.asname or alias.name] = value
    return bound


@cache
def raisers() -> dict[str, frozenset[str]]:
    """Code -> the modules (not a ``_codes``) that name it. An ``__init__`` that only
    exports a code names it in strings and a ``TYPE_CHECKING`` import, never in a load."""
    found: dict[str, set[str]] = {code: set() for code in catalogue()}
    for module, path in _sources():
        if path.stem == CATALOGUE_MODULE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = _bindings(module, path, tree)
        for node in ast.walk(tree):
            value: object = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                value = bound.get(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                owner = bound.get(node.value.id)
                if isinstance(owner, types.ModuleType):
                    value = getattr(owner, node.attr, None)
            if isinstance(value, DiagnosticCode):
                found[value.code].add(module)
    return {code: frozenset(modules) for code, modules in found.items()}


def _sidecar_codes() -> set[str]:
    listed = re.search(r"CODES = Object\.freeze\(\[(.*?)\]\)", SIDECAR_CODES.read_text(), re.S)
    assert listed is not None
    return set(re.findall(r'"([a-z_]+\.[a-z_]+)"', listed.group(1)))


def _package(module: str) -> str:
    """``gateway.host._x`` -> ``gateway.host``; ``adapters.pi.sidecar._y`` -> ``adapters.pi``;
    a module of the top of ``gateway`` or ``adapters`` -> that top."""
    parts = module.split(".")
    return ".".join(parts[:2]) if (ROOT.joinpath(*parts[:2])).is_dir() else parts[0]


def _rank(package: str) -> float:
    if package == "adapters":
        return len(FLOORS) - 1
    if package.startswith("adapters."):
        return len(FLOORS) - 0.5  # an adapter stands above what the adapters share
    for index, groups in enumerate(FLOORS):
        if package in groups:
            return index
    raise AssertionError(f"{package} is on no floor")


def expected_home(packages: set[str]) -> str:
    """The lowest package every raiser can import: the lowest raiser, or, when the lowest
    stand side by side, their common parent (adapters side by side: ``adapters``; packages
    of one floor: ``gateway.base``)."""
    lowest = min(map(_rank, packages))
    side_by_side = {package for package in packages if _rank(package) == lowest}
    if len(side_by_side) == 1:
        return side_by_side.pop()
    if all(package.startswith("adapters.") for package in side_by_side):
        return "adapters"
    return "gateway.base"


def test_the_analysis_sees_raises_through_each_kind_of_import():
    found = raisers()
    assert "gateway.wire._reader" in found["protocol.invalid_json"]  # _codes.NAME
    assert "gateway.host._starting" in found["extension.exited"]  # a name a package exports
    assert "adapters.nu._tool" in found["package.not_an_object"]  # the adapters' shared codes
    assert "adapters.nanobot.sidecar._diagnostics" in found["package.contribution_missing"]


def test_expected_home_is_the_lowest_package_every_raiser_imports():
    assert expected_home({"gateway.host", "gateway.wire"}) == "gateway.wire"
    assert expected_home({"adapters.pi", "gateway.host"}) == "gateway.host"
    assert expected_home({"adapters.pi", "adapters.nu"}) == "adapters"
    assert expected_home({"adapters.pi", "adapters"}) == "adapters"


def test_every_declared_code_is_raised():
    sidecar = _sidecar_codes()
    never = sorted(
        code for code, modules in raisers().items() if not modules and code not in sidecar
    )
    assert never == []


def test_every_code_the_sidecar_emits_is_declared_by_the_adapters():
    entries = catalogue()
    assert {
        code: entries[code].module if code in entries else None
        for code in _sidecar_codes()
        if code not in entries or not entries[code].module.startswith("adapters")
    } == {}


def test_every_code_is_declared_in_the_lowest_package_that_raises_it():
    misplaced = {}
    for code, entry in catalogue().items():
        modules = raisers()[code]
        if not modules:
            continue
        home = expected_home({_package(module) for module in modules})
        declared = entry.module.rpartition(".")[0]
        if declared != home:
            misplaced[code] = f"declared in {declared}, raised in {sorted(modules)}: {home}"
    assert misplaced == {}


def test_no_package_imports_another_packages_codes():
    reaching = []
    for module, path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                source = _imported_from(module, path, node)
                targets = [f"{source}.{alias.name}" for alias in node.names] + [source]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                owner, _, last = target.rpartition(".")
                inside = module == owner or module.startswith(owner + ".")
                if last == "_codes" and not inside:
                    reaching.append(f"{module} imports {target}")
    assert reaching == []
