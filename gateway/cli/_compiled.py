"""A dataclass's generated methods compiled once, not at every start (docs/performance/cli.md,
"CLI start").

``dataclasses`` writes each method it generates (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, a frozen class's ``__setattr__``/``__delattr__``) as source text and ``exec``s
it. Compiling those texts is most of what making a dataclass costs: the ~180 dataclasses a
``gateway call`` loads took ~110 ms of its CPU at every start, for the same texts each time.

While a verb runs in a process of its own (``gateway.cli._main._compiled``: as its modules
load and as it runs), ``dataclasses`` finds an ``exec`` in its own module, which shadows the
built-in: it compiles a text as the built-in would (file name ``<string>``, no
``__future__`` flags — the ``dataclasses`` module has none to pass on), keyed by the text's
digest, and keeps what it compiled in a file beside this module's byte code
(``importlib.util.cache_from_source``), which the next start reads instead of compiling.
Same text, same compiler: the same code objects, so the same classes. The file is written
as Python writes byte code — not under ``sys.dont_write_bytecode``, not where that folder
cannot be written — and one that cannot be read, or was written by another Python
(``MAGIC_NUMBER``), is ignored.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import hashlib
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER, cache_from_source
from pathlib import Path
from types import CodeType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["MOST", "compiled_once", "place"]

MOST = 5000
"""Texts a file keeps at most (a verb makes ~900-1,700): past it, a write keeps only the run's,
so that the texts of classes changed since (a checkout being edited) do not pile up."""


def place(name: str) -> Path:
    """The file keeping the dataclass code of the verb module ``name``: beside this
    module's byte code (``__pycache__``, or under ``sys.pycache_prefix``)."""
    tag = sys.implementation.cache_tag
    return Path(cache_from_source(__file__)).with_name(f"{name}.{tag}.dataclasses")


@contextlib.contextmanager
def compiled_once(name: str) -> Iterator[None]:
    """While the block runs, ``dataclasses`` compiles what it generates through the kept
    code of ``name`` (a verb's module), and what it had to compile is kept afterwards."""
    path = place(name)
    known = _read(path)
    fresh: dict[bytes, CodeType] = {}
    used: set[bytes] = set()

    def exec_(source: object, names: object = None, local: object = None) -> None:
        """``exec(source, globals, locals)``, as ``dataclasses`` calls it."""
        if names is None:  # as the built-in: the caller's namespace
            caller = sys._getframe(1)
            names, local = caller.f_globals, caller.f_locals if local is None else local
        if isinstance(source, str):
            key = hashlib.blake2b(source.encode(), digest_size=16).digest()
            code = known.get(key) or fresh.get(key)
            used.add(key)
            if code is None:
                code = fresh[key] = compile(source, "<string>", "exec", dont_inherit=True)
            source = code
        builtins.exec(source, names, local)  # type: ignore[arg-type]

    setattr(dataclasses, "exec", exec_)  # noqa: B010 - not an attribute it declares
    try:
        yield
    finally:
        delattr(dataclasses, "exec")
        if fresh:
            kept = {**known, **fresh}
            if len(kept) > MOST:  # texts of classes since changed: only this run's stay
                kept = {key: code for key, code in kept.items() if key in used}
            _write(path, kept)


def _read(path: Path) -> dict[bytes, CodeType]:
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    if not data.startswith(MAGIC_NUMBER):
        return {}
    try:
        kept = marshal.loads(data[len(MAGIC_NUMBER) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {k: v for k, v in kept.items() if isinstance(k, bytes) and isinstance(v, CodeType)}


def _write(path: Path, kept: dict[bytes, CodeType]) -> None:
    if sys.dont_write_bytecode:
        return
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        partial.write_bytes(MAGIC_NUMBER + marshal.dumps(kept))
        os.replace(partial, path)  # whole or not at all, whoever else writes it
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink()
