"""The floors of ``gateway/`` and ``adapters/`` (docs/architecture.md): a lower floor never
imports a higher one, nothing imports in a circle, and no module outgrows the house's 400
lines. Every import counts — at module level, inside functions and under
``TYPE_CHECKING`` — and importing ``a.b.c`` imports the packages ``a.b`` and ``a`` too: a
cycle through a package ``__init__`` is a cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Lowest first. A module may import its own floor and the floors below it.
FLOORS: tuple[frozenset[str], ...] = (
    # gateway.testing imports nothing of the gateway: stand-ins for tests and benchmarks.
    frozenset({"gateway.base", "gateway.testing"}),
    frozenset({"gateway.sandbox", "gateway.store", "gateway.policy"}),
    frozenset({"gateway.runtime"}),
    frozenset({"gateway.wire"}),
    frozenset({"gateway.model"}),
    frozenset({"gateway.packages"}),
    frozenset({"gateway.host"}),
    frozenset({"gateway.audit", "gateway.serve"}),
    # Reached only through entry points; they read metadata and plan launches, so nothing
    # above the audit's vocabulary (never the command line) is theirs to import.
    frozenset({"adapters"}),
    frozenset({"gateway.migrate"}),
    frozenset({"gateway.cli"}),
    frozenset({"gateway"}),  # the public API: gateway/__init__.py and __main__.py
)

MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    found = {}
    for package in ("gateway", "adapters"):
        for path in (ROOT / package).rglob("*.py"):
            found[_module_name(path)] = path
    return found


def _imported(module: str, path: Path) -> Iterator[str]:
    """Every module ``module`` imports, resolved to the modules of this tree."""
    modules = _modules()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                if not is_package:
                    parts.pop()
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            # The packages above the target are imported too, except this module's own, and
            # the lazy public API (`gateway`) passed through on the way to a floor: running it
            # imports gateway.base alone (test_passing_through_the_public_api_loads_only_base).
            passed = target
            while target:
                lazy_root = target == "gateway" and passed != "gateway"
                if target != module and not module.startswith(target + ".") and not lazy_root:
                    yield target
                target = target.rpartition(".")[0]


@cache
def _graph() -> dict[str, frozenset[str]]:
    return {m: frozenset(_imported(m, p)) for m, p in _modules().items()}


def _floor(module: str) -> int:
    """The floor of the most specific group naming ``module``."""
    best, depth = -1, -1
    for index, groups in enumerate(FLOORS):
        for group in groups:
            if (module == group or module.startswith(group + ".")) and group.count(".") > depth:
                best, depth = index, group.count(".")
    assert best >= 0, f"{module} is on no floor: add its folder to FLOORS"
    return best


def _cycles(graph: dict[str, frozenset[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_import_graph_is_read_from_the_tree():
    graph = _graph()
    assert "gateway.host._gateway" in graph["gateway"] or "gateway.host" in graph["gateway"]
    assert "gateway.wire.protocol" in graph["gateway.wire.process"]
    assert "gateway.model" in graph["adapters.pi.adapter"]


def test_cycle_finder_finds_a_cycle_through_a_package():
    graph = {"p": frozenset({"p.a"}), "p.a": frozenset({"q"}), "q": frozenset({"p"})}
    assert _cycles(graph) == [["p", "p.a", "q"]]


def test_gateway_and_adapters_import_in_no_cycle():
    assert _cycles(_graph()) == []


def test_a_lower_floor_never_imports_a_higher_one():
    upward = sorted(
        f"{module} (floor {_floor(module)}) imports {target} (floor {_floor(target)})"
        for module, targets in _graph().items()
        for target in targets
        if _floor(target) > _floor(module)
    )
    assert upward == []


def test_passing_through_the_public_api_loads_only_base():
    code = "import sys, gateway; print(sorted(m for m in sys.modules if m.startswith('gateway')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["['gateway',", "'gateway.base',", "'gateway.base.lazy']"]


def test_every_module_is_on_a_floor():
    for module in _modules():
        _floor(module)


def test_no_module_is_over_400_lines():
    oversized = sorted(
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in _modules().values()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    )
    assert oversized == []
