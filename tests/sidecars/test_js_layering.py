"""The Node sidecar's modules stand in floors (issue 18): a module imports only from its own
floor or lower ones, no imports go round in a cycle, and no module grows past 400 lines.

Read from the source, without Node: a static ``import … from`` / ``export … from`` and a
dynamic ``import("literal")`` are both edges, since a lazy import closes a cycle as surely as
an eager one (the hosts are loaded with ``import()``). Relative specifiers name files here;
bare ones (``jiti``, ``node:fs``) are third-party or Node's own and stay out of the graph."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

SIDECAR = Path(__file__).resolve().parents[2] / "sidecars"

MAX_LINES = 400

# Lowest first. An entry ending in "/" holds every module under that folder, so a new Pi,
# OpenClaw or Nu module is placed with its host; any other new module must be added here.
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # The protocol and the vocabulary every part shares: descriptors, the state object,
    # negotiated features, diagnostic codes, tool content, the message loop.
    (
        "protocol",
        (
            "lib/stdio.mjs",
            "lib/state.mjs",
            "lib/features.mjs",
            "lib/diagnostics.mjs",
            "lib/content.mjs",
            "lib/wire.mjs",
        ),
    ),
    # What the ecosystem hosts share: the routes and the register / registration.update
    # messages they announce late registrations through, the audit's record, and the
    # install-time compile of what jiti loads.
    ("host machinery", ("lib/registration.mjs", "lib/audit/record.mjs", "lib/jiti-compile.mjs")),
    # One ecosystem each; the audit's recording stand-ins wrap a host's own modules.
    (
        "ecosystem hosts",
        (
            "lib/pi/",
            "lib/openclaw/",
            "lib/nu/",
            "lib/audit/pi-loader.mjs",
            "lib/audit/openclaw-api.mjs",
        ),
    ),
    # Loads the hosts a spec names and routes requests across them.
    ("dispatcher", ("lib/hosts.mjs",)),
    # The programs node runs, and the module it loads before the sidecar (`--import`).
    (
        "entries",
        ("sidecar.mjs", "bundle.mjs", "nu-bundle.mjs", "nu-tool.mjs", "lib/tier-up.mjs"),
    ),
)

ECOSYSTEMS = ("lib/pi/", "lib/openclaw/", "lib/nu/")

_STATIC = re.compile(r"""^[ \t]*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']""", re.M)
_SIDE_EFFECT = re.compile(r"""^[ \t]*import\s*["']([^"']+)["']""", re.M)
# Not `jiti.import(file)` or `obj.import(...)`: only the import keyword, with a literal.
_DYNAMIC = re.compile(r"""(?<![\w$.])import\s*\(\s*(?:"([^"]+)"|'([^']+)'|`([^`$]+)`)\s*[,)]""")
_COMMENT_LINE = re.compile(r"^[ \t]*(?://|/\*|\*).*$", re.M)


def specifiers(source: str) -> list[str]:
    """Every module specifier the source imports, statically or with a literal ``import()``."""
    code = _COMMENT_LINE.sub("", source)
    found = [m.group(1) for m in _STATIC.finditer(code)]
    found += [m.group(1) for m in _SIDE_EFFECT.finditer(code)]
    found += [next(g for g in m.groups() if g) for m in _DYNAMIC.finditer(code)]
    return found


def sidecar_modules() -> dict[str, Path]:
    """The sidecar's own modules by path relative to ``sidecars/`` (node_modules excluded)."""
    modules: dict[str, Path] = {}
    for folder, subfolders, files in os.walk(SIDECAR):
        subfolders[:] = sorted(d for d in subfolders if d != "node_modules")
        for name in files:
            if name.endswith(".mjs"):
                path = Path(folder, name)
                modules[path.relative_to(SIDECAR).as_posix()] = path
    return modules


def import_graph() -> tuple[dict[str, set[str]], list[str]]:
    """Module -> the sidecar modules it imports, and the relative imports naming no module."""
    modules = sidecar_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    unresolved: list[str] = []
    for name, path in modules.items():
        for spec in specifiers(path.read_text(encoding="utf-8")):
            if not spec.startswith(("./", "../")):
                continue
            # Not Path.resolve: node_modules may be a symlink out of the tree.
            target = Path(os.path.relpath(path.parent / spec, SIDECAR)).as_posix()
            if target in modules:
                graph[name].add(target)
            else:
                unresolved.append(f"{name}: {spec}")
    return graph, unresolved


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that reach each other (Tarjan), each a cycle or a knot of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def one_cycle(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """A shortest way from the group's first module round to itself, inside the group."""
    start, inside = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in sorted(graph[node] & inside):
                if nxt == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    return group


def floors_of(module: str) -> list[int]:
    return [
        level
        for level, (_, entries) in enumerate(FLOORS)
        for entry in entries
        if module == entry or (entry.endswith("/") and module.startswith(entry))
    ]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()[0]


def test_the_parser_reads_static_dynamic_and_re_exported_imports() -> None:
    source = """
// import { gone } from "./commented.mjs";
/** import("./documented.mjs") */
import fs from "node:fs";
import {
\ta,
\tb,
} from "./multi.mjs";
import "./side-effect.mjs";
export * from '../reexported.mjs';
const lazy = () => import("./lazy.mjs");
const jitiLoaded = jiti.import("./not-an-import.mjs");
const computed = await import(pathToFileURL(file).href);
"""
    assert sorted(specifiers(source)) == sorted(
        ["node:fs", "./multi.mjs", "./side-effect.mjs", "../reexported.mjs", "./lazy.mjs"]
    )


def test_the_import_graph_holds_the_sidecars_real_edges(graph: dict[str, set[str]]) -> None:
    # So the rules below cannot pass on an empty graph.
    assert "sidecar.mjs" in graph
    assert {"lib/hosts.mjs", "lib/wire.mjs", "lib/pi/compile.mjs"} <= graph["sidecar.mjs"]
    assert {"lib/pi/host.mjs", "lib/openclaw/host.mjs", "lib/nu/host.mjs"} <= graph["lib/hosts.mjs"]
    assert "lib/openclaw/api.mjs" in graph["lib/audit/openclaw-api.mjs"]
    assert not any(
        target.startswith("node_modules/") for targets in graph.values() for target in targets
    )


def test_every_relative_import_names_a_sidecar_module() -> None:
    unresolved = import_graph()[1]
    assert not unresolved, f"relative imports that name no sidecar module: {unresolved}"


def test_sidecar_modules_form_no_import_cycle(graph: dict[str, set[str]]) -> None:
    cycles = [
        f"{', '.join(group)} import each other, e.g. {' -> '.join(one_cycle(graph, group))}"
        for group in strongly_connected(graph)
    ]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_every_sidecar_module_stands_on_exactly_one_floor(graph: dict[str, set[str]]) -> None:
    placed = {module: [FLOORS[level][0] for level in floors_of(module)] for module in graph}
    unplaced = sorted(module for module, floors in placed.items() if not floors)
    assert not unplaced, f"modules on no floor (add them to FLOORS): {unplaced}"
    doubled = {module: floors for module, floors in placed.items() if len(floors) > 1}
    assert not doubled, f"modules on several floors: {doubled}"


def test_sidecar_lower_floor_never_imports_a_higher_one(graph: dict[str, set[str]]) -> None:
    upward = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = floors_of(module), floors_of(target)
            if here and there and there[0] > here[0]:
                upward.append(
                    f"{module} ({FLOORS[here[0]][0]}) imports {target} ({FLOORS[there[0]][0]})"
                )
    assert not upward, "imports from a higher floor:\n" + "\n".join(upward)


def test_no_ecosystem_host_imports_another_ecosystems_modules(graph: dict[str, set[str]]) -> None:
    def ecosystem(module: str) -> str | None:
        return next((folder for folder in ECOSYSTEMS if module.startswith(folder)), None)

    crossing = [
        f"{module} imports {target}"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if ecosystem(module) and ecosystem(target) and ecosystem(module) != ecosystem(target)
    ]
    assert not crossing, "ecosystem hosts reach into each other:\n" + "\n".join(crossing)


def test_no_sidecar_module_is_over_400_lines() -> None:
    long = {
        name: count
        for name, path in sorted(sidecar_modules().items())
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines (split them): {long}"
