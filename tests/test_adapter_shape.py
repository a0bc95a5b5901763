"""Every adapter has one shape (docs/architecture.md, "One shape for every adapter"): the
files, what each exports, metadata read in ``_inspect``, launches planned in ``_launch``, the
audit knowledge loaded only for ``gateway audit``, nothing importing the command line, and
the architecture page listing every adapter the registry holds."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from typing import Final

import pytest

from adapters.registry import ADAPTERS
from gateway.model import Adapter

ROOT: Final = Path(__file__).resolve().parents[1]
SHAPE: Final = ("__init__.py", "adapter.py", "_inspect.py", "_launch.py", "_audit.py", "_codes.py")
PUBLIC_MODULES: Final = frozenset({"adapter.py", "discovery.py"})
EXCEPTIONS: Final = {
    # `python -m adapters.pi.runtime` is the clone's `gateway setup` (README, CI); a program.
    "pi": frozenset({"runtime.py"}),
    # The nanobot sidecar's own program (`python -m adapters.nanobot.sidecar`), a runtime.
    "nanobot": frozenset({"sidecar"}),
    # OpenClaw's compatibility data (JSON), read by `_compat_registry`.
    "openclaw": frozenset({"data"}),
}
PACKAGES: Final = {
    type(adapter).__module__.removesuffix(".adapter").removeprefix("adapters."): adapter
    for adapter in ADAPTERS
}


def _imports(path: Path, *, top_level_only: bool = False) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: list[str] = []
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_the_registry_holds_nine_adapters_each_in_its_own_package() -> None:
    assert len(PACKAGES) == len(ADAPTERS) == 9
    for name, adapter in PACKAGES.items():
        assert type(adapter).__module__ == f"adapters.{name}.adapter"


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_adapter_package_has_the_shapes_files(name: str) -> None:
    folder = ROOT / "adapters" / name
    assert [f for f in SHAPE if not (folder / f).is_file()] == []


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_an_adapters_other_modules_are_private(name: str) -> None:
    folder = ROOT / "adapters" / name
    public = {
        child.name
        for child in folder.iterdir()
        if not child.name.startswith(("_", ".")) and (child.suffix == ".py" or child.is_dir())
    }
    assert public - PUBLIC_MODULES - EXCEPTIONS.get(name, frozenset()) == set()


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_the_package_exports_its_ecosystem_and_its_adapter(name: str) -> None:
    package = importlib.import_module(f"adapters.{name}")
    module = importlib.import_module(f"adapters.{name}.adapter")
    adapter = PACKAGES[name]
    cls = type(adapter)
    assert sorted(module.__all__) == sorted(["ECOSYSTEM", cls.__name__])
    assert {"ECOSYSTEM", cls.__name__} <= set(package.__all__)
    assert package.ECOSYSTEM == module.ECOSYSTEM == adapter.ecosystem
    assert getattr(package, cls.__name__) is cls
    assert isinstance(adapter, Adapter)


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_the_adapter_reads_in_inspect_and_plans_in_launch(name: str) -> None:
    imported = _imports(ROOT / "adapters" / name / "adapter.py")
    assert f"adapters.{name}._inspect" in imported
    assert f"adapters.{name}._launch" in imported


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_the_audit_knowledge_is_loaded_only_for_gateway_audit(name: str) -> None:
    top = _imports(ROOT / "adapters" / name / "adapter.py", top_level_only=True)
    assert not [m for m in top if m.startswith(f"adapters.{name}._audit")]
    assert hasattr(type(PACKAGES[name]), "audit")


def test_nothing_below_the_command_line_imports_it() -> None:
    below = [
        path
        for folder in ("adapters", "gateway")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "cli" not in path.relative_to(ROOT).parts
        and path.relative_to(ROOT).as_posix() not in ("gateway/__init__.py", "gateway/__main__.py")
    ]
    offenders = [
        path.relative_to(ROOT).as_posix()
        for path in below
        if any(m == "gateway.cli" or m.startswith("gateway.cli.") for m in _imports(path))
    ]
    assert offenders == []


def test_the_architecture_page_lists_every_adapter() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page.split("### One shape for every adapter", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)` \| `adapters/([a-z_]+)/`", section, re.MULTILINE)
    assert sorted(rows) == sorted((a.ecosystem, name) for name, a in PACKAGES.items())
