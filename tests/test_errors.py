"""One root for every exception: each class the gateway and its adapters define derives
from ``GatewayError``, and the tree drawn in its docstring is the real one."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest

import adapters
import gateway
from gateway.base import GatewayError, errors
from gateway.packages import SourceError

ROOT = Path(__file__).resolve().parent.parent
DRAWN = re.compile(
    r"^    (?P<indent>(?:│   |    )*)[├└]── (?P<name>\w+)(?: \((?P<extra>\w+)\))? \.+ "
    r"(?P<package>[\w.]+)$"
)


@cache
def defined() -> list[type[BaseException]]:
    """Every exception class defined in a module of gateway/ or adapters/."""
    found = []
    for package in (gateway, adapters):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if info.name.endswith("__main__"):
                continue
            module = importlib.import_module(info.name)
            found += [
                value
                for value in vars(module).values()
                if inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == info.name
            ]
    return found


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if ROOT.joinpath(*parts[:2]).is_dir() else parts[0]


def _real(cls: type[BaseException]) -> tuple[str, str | None, str]:
    """(parent, the built-in base it keeps, package) of one class."""
    parent = next(base for base in cls.__mro__[1:] if issubclass(base, GatewayError))
    extra = [
        base.__name__
        for base in cls.__bases__
        if not issubclass(base, GatewayError) and base is not Exception
    ]
    return parent.__name__, (extra[0] if extra else None), _package(cls.__module__)


def drawn() -> dict[str, tuple[str, str | None, str]]:
    """The docstring's tree: name -> (parent, built-in base, package)."""
    tree: dict[str, tuple[str, str | None, str]] = {}
    parents = ["GatewayError"]
    for line in (errors.__doc__ or "").splitlines():
        found = DRAWN.match(line)
        if found is None:
            continue
        depth = len(found["indent"]) // 4
        del parents[depth + 1 :]
        assert found["name"] not in tree, f"{found['name']} drawn twice"
        tree[found["name"]] = (parents[depth], found["extra"], found["package"])
        parents.append(found["name"])
    return tree


def test_the_classes_are_found():
    names = {cls.__name__ for cls in defined()}
    assert {"StoreCorrupt", "RegisterInvalid", "ConfigError", "_Stop"} <= names


def test_every_exception_derives_from_gateway_error():
    assert [cls.__qualname__ for cls in defined() if not issubclass(cls, GatewayError)] == []


def test_the_docstring_draws_the_real_tree():
    public = [
        cls for cls in defined() if not cls.__name__.startswith("_") and cls is not GatewayError
    ]
    assert len({cls.__name__ for cls in public}) == len(public), "two classes of one name"
    assert drawn() == {cls.__name__: _real(cls) for cls in public}


def test_gateway_error_is_public_from_gateway_and_its_base():
    assert gateway.GatewayError is GatewayError
    assert "GatewayError" in gateway.__all__ and "GatewayError" in gateway.base.__all__


def test_a_class_that_was_a_built_in_kind_still_is():
    from gateway.base import PathRefused
    from gateway.wire import MessageError

    with pytest.raises(OSError):
        raise PathRefused("..", "it leaves its root")
    with pytest.raises(ValueError):
        raise MessageError("not a message")


def test_one_source_error_carries_the_packages_own_diagnostics():
    assert SourceError("no such package").diagnostics == []
    assert [cls for cls in defined() if cls.__name__ == "SourceError"] == [SourceError]
