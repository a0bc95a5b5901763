"""Each package's public names are written once: as ``NAME as NAME`` in its ``__init__``'s
``if TYPE_CHECKING:`` block, which the type checkers read and ``gateway.base.lazy`` reads
at import for the lazy map and ``__all__`` (docs/architecture.md)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from gateway.base.lazy import exported_names

ROOT = Path(__file__).resolve().parent.parent
INITS = sorted(
    path
    for top in ("gateway", "adapters")
    for path in (ROOT / top).glob("**/__init__.py")
    if "node_modules" not in path.parts
)
LAZY = [path for path in INITS if "lazy_exports(__name__, __file__)" in path.read_text()]
ALLOWED_TOP = ("docstring", "from __future__", "lazy import", "TYPE_CHECKING", "block", "exports")


def _package(path: Path) -> str:
    return ".".join(path.parent.relative_to(ROOT).parts)


def _block(tree: ast.Module) -> ast.If:
    return next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    )


def _kind(node: ast.stmt) -> str:
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return "docstring"
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return "from __future__"
    if isinstance(node, ast.ImportFrom) and node.module == "gateway.base.lazy":
        return "lazy import"
    if isinstance(node, ast.Assign) and ast.unparse(node) == "TYPE_CHECKING = False":
        return "TYPE_CHECKING"
    if isinstance(node, ast.If):
        return "block"
    if isinstance(node, ast.Assign) and "lazy_exports(__name__, __file__)" in ast.unparse(node):
        return "exports"
    return ast.unparse(node)


def test_every_package_that_re_exports_names_does_it_in_one_block() -> None:
    eager = []
    for path in INITS:
        if path in LAZY:
            continue
        tree = ast.parse(path.read_text())
        imported = {
            alias.asname or alias.name
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module != "__future__"
            for alias in node.names
        }
        listed = next(
            (
                ast.literal_eval(node.value)
                for node in tree.body
                if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__"
            ),
            [],
        )
        if set(listed) & imported:
            eager.append(f"{path.relative_to(ROOT)}: {sorted(set(listed) & imported)}")
    assert LAZY, "no __init__ found with lazy_exports"
    assert eager == []


@pytest.mark.parametrize("path", LAZY, ids=lambda path: _package(path))
def test_a_lazy_init_holds_its_block_and_nothing_else(path: Path) -> None:
    kinds = [_kind(node) for node in ast.parse(path.read_text()).body]
    assert [kind for kind in kinds if kind not in ALLOWED_TOP] == []


@pytest.mark.parametrize("path", LAZY, ids=lambda path: _package(path))
def test_the_block_is_read_as_pythons_parser_reads_it(path: Path) -> None:
    source = path.read_text()
    parsed = {
        alias.name: (statement.module, alias.asname)
        for statement in _block(ast.parse(source)).body
        if isinstance(statement, ast.ImportFrom)
        for alias in statement.names
    }
    read = exported_names(source, str(path))
    assert list(read) == list(parsed)
    assert {name: (module, name) for name, module in read.items()} == parsed


@pytest.mark.parametrize("path", LAZY, ids=lambda path: _package(path))
def test_each_name_of_the_block_is_exported_and_is_its_modules_object(path: Path) -> None:
    package = importlib.import_module(_package(path))
    where = exported_names(path.read_text(), str(path))
    assert package.__all__ == sorted(where) == dir(package)
    for name, module in where.items():
        assert getattr(package, name) == getattr(importlib.import_module(module), name)


def _private_elsewhere(package: str, module: str) -> bool:
    """``module`` is another package's private module: a package re-exports its own
    modules' names, and another package's only through that package's public names."""
    if module == package:
        return False
    if not module.startswith(package + "."):
        return any(part.startswith("_") for part in module.split("."))
    rest = module[len(package) + 1 :].split(".")
    return any(part.startswith("_") for part in rest[:-1]) or (
        len(rest) > 1 and rest[-1].startswith("_")
    )


@pytest.mark.parametrize("path", LAZY, ids=lambda path: _package(path))
def test_no_block_reaches_into_another_packages_private_module(path: Path) -> None:
    package = _package(path)
    where = exported_names(path.read_text(), str(path))
    assert {n: m for n, m in where.items() if _private_elsewhere(package, m)} == {}


def test_the_private_module_rule_tells_own_modules_from_others() -> None:
    assert not _private_elsewhere("gateway.base", "gateway.base._home")
    assert not _private_elsewhere("gateway", "gateway.model")
    assert not _private_elsewhere("gateway.sandbox", "gateway.sandbox.egress")
    assert _private_elsewhere("gateway", "gateway.host._gateway")
    assert _private_elsewhere("gateway.sandbox", "gateway.sandbox.egress._proxy")
    assert _private_elsewhere("adapters", "gateway.base._home")


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ("    from gateway.base._home import HomeUnusable\n", "'HomeUnusable'"),
        ("    from gateway.base._home import HomeUnusable as Unusable\n", "'HomeUnusable as"),
        ("    from ._home import HomeUnusable as HomeUnusable\n", "module '._home'"),
        ("    import gateway.base._home\n", "'import gateway.base._home'"),
        ("    X = 1\n", "'X = 1'"),
    ],
)
def test_anything_but_a_named_re_export_in_the_block_is_refused(block: str, problem: str) -> None:
    source = f'"""doc"""\n\nTYPE_CHECKING = False\n\nif TYPE_CHECKING:\n{block}\n'
    with pytest.raises(
        ImportError, match=r"only `from package\.module import NAME as NAME`"
    ) as err:
        exported_names(source, "pkg/__init__.py")
    assert "pkg/__init__.py" in str(err.value) and problem in str(err.value)


def test_an_init_without_the_block_is_refused() -> None:
    with pytest.raises(ImportError, match=r"pkg/__init__.py: no `if TYPE_CHECKING:` block"):
        exported_names('"""doc"""\n', "pkg/__init__.py")


def test_parenthesised_statements_and_comments_are_read() -> None:
    source = (
        '"""doc"""\n'
        "if TYPE_CHECKING:\n"
        "    # the models\n"
        "    from a.b import (\n"
        "        C as C,  # why\n"
        "        D as D,\n"
        "    )\n"
        "    from a.e import F as F, G as G\n"
        "\n"
        "__getattr__ = 1\n"
    )
    assert exported_names(source) == {"C": "a.b", "D": "a.b", "F": "a.e", "G": "a.e"}
