"""Dataclass methods compiled once (``gateway.cli._compiled``): the classes a verb makes with
the kept code are the classes it makes without it — the same code objects, compared field
by field — and a file that cannot be used is no problem. Nothing is timed."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gateway.cli import _compiled
from gateway.cli._compiled import compiled_once


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "kept.dataclasses"
    monkeypatch.setattr(_compiled, "place", lambda name: path)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # the suite runs without byte code
    return path


def _make() -> type:
    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        y: tuple[int, ...] = dataclasses.field(default_factory=tuple)
        label: str = "p"

    return Point


def _same_class(one: type, other: type) -> None:
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__lt__"):
        mine, theirs = getattr(one, name), getattr(other, name)
        mine, theirs = getattr(mine, "__wrapped__", mine), getattr(theirs, "__wrapped__", theirs)
        assert mine.__code__ == theirs.__code__, name
        assert mine.__code__.co_filename == theirs.__code__.co_filename == "<string>"
    assert one.__init__.__annotations__ == other.__init__.__annotations__  # type: ignore[misc]


def test_a_class_made_with_kept_code_is_the_class_made_without(kept: Path) -> None:
    plain = _make()
    with compiled_once("verb"):
        cold = _make()  # compiles, and keeps what it compiled
    assert kept.is_file()
    with compiled_once("verb"):
        warm = _make()  # reads it
    for made in (cold, warm):
        _same_class(made, plain)
        point = made(1, (2,))
        assert repr(point).endswith("_make.<locals>.Point(x=1, y=(2,), label='p')")
        assert point == made(1, (2,)) and point < made(2) and hash(point) == hash(made(1, (2,)))
        with pytest.raises(dataclasses.FrozenInstanceError):
            point.x = 3  # type: ignore[misc]
    assert not hasattr(dataclasses, "exec")  # the built-in again after the block


def test_nothing_is_written_when_nothing_was_compiled(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with compiled_once("verb"):
        _make()
    written: list[Path] = []
    monkeypatch.setattr(_compiled, "_write", lambda path, code: written.append(path))
    with compiled_once("verb"):
        _make()
    assert written == []


@pytest.mark.parametrize("content", [b"", b"not marshal", b"\x00\x00\x00\x00garbage"])
def test_a_file_that_cannot_be_read_is_compiled_again(kept: Path, content: bytes) -> None:
    kept.write_bytes(content)
    with compiled_once("verb"):
        made = _make()
    _same_class(made, _make())
    assert kept.read_bytes() != content  # replaced by a usable one


def test_a_full_file_keeps_only_what_the_run_used(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with compiled_once("verb"):
        _make()
    made = set(_compiled._read(kept))
    with compiled_once("verb"):
        dataclasses.make_dataclass("Old", [("b", int)])  # a class since changed
    old = set(_compiled._read(kept)) - made
    monkeypatch.setattr(_compiled, "MOST", len(made | old))  # one text more is too many
    with compiled_once("verb"):
        _make()
        dataclasses.make_dataclass("New", [("c", str)])
    after = set(_compiled._read(kept))
    assert old and made < after and not old & after  # Old's texts went; this run's stayed


def test_the_file_is_not_written_where_byte_code_is_not(
    kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with compiled_once("verb"):
        _make()
    assert not kept.exists()


FINGERPRINTS = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from gateway.cli import _compiled, _main
    mode, folder = sys.argv[1], Path(sys.argv[2])
    _compiled.place = lambda name: folder / name
    if mode == "plain":  # the verb's modules made by dataclasses alone
        _main._verb("call", process=True)
        import anyio._backends._asyncio
    else:
        with _main._compiled("call"):  # as a `gateway call` process makes them
            _main._verb("call", process=True)
            import anyio._backends._asyncio  # as the run loads it

    def code(c):
        consts = [code(k) if hasattr(k, "co_code") else repr(k) for k in c.co_consts]
        return [c.co_code.hex(), consts, c.co_names, c.co_varnames, c.co_freevars,
                c.co_cellvars, c.co_flags, c.co_argcount, c.co_kwonlyargcount,
                c.co_posonlyargcount, c.co_filename, c.co_name, c.co_qualname,
                c.co_firstlineno, c.co_linetable.hex(), c.co_exceptiontable.hex()]

    found = {}
    for module in sorted(sys.modules):
        for name, value in sorted(vars(sys.modules[module]).items()):
            if not isinstance(value, type) or "__dataclass_fields__" not in vars(value):
                continue
            for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__",
                           "__delattr__", "__lt__", "__le__", "__gt__", "__ge__"):
                fn = vars(value).get(method)
                fn = getattr(fn, "__wrapped__", fn)
                if getattr(fn, "__code__", None) is not None and fn.__code__.co_filename == "<string>":
                    found[f"{module}.{name}.{method}"] = [
                        code(fn.__code__), repr(fn.__annotations__)]
    print(json.dumps(found))
    """
)


def _fingerprints(mode: str, folder: Path) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", FINGERPRINTS, mode, str(folder)],
        capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_a_verbs_dataclasses_are_the_same_with_the_kept_code(tmp_path: Path) -> None:
    """Fresh interpreters (what a verb loads is per process): ``call``'s modules made by
    ``dataclasses`` alone, then compiling and keeping, then from the kept file — every
    generated method of every dataclass the same code, with the same annotations."""
    plain = _fingerprints("plain", tmp_path)
    assert not list(tmp_path.iterdir())
    cold = _fingerprints("kept", tmp_path)
    (kept,) = tmp_path.iterdir()
    written = kept.stat().st_mtime_ns
    warm = _fingerprints("kept", tmp_path)
    assert kept.stat().st_mtime_ns == written  # nothing compiled: nothing written
    assert len(plain) > 300  # the host's, the wire's, pydantic's and anyio's
    assert plain == cold == warm
