"""The runtimes the contract suite runs against, each described by one :class:`Runtime`.

A new runtime (OpenClaw, Nu, …) joins the suite by adding one entry to ``RUNTIMES``: how
the gateway launches it, how its behaviours are called, which features it is offered, and
the contract rules it is known to break (each an ``xfail(strict=True)`` naming the bug, so
the fix turns the suite red until the entry is removed).

The behaviours a runtime offers, as tools of a fixture it hosts (``call`` maps each to a
tool name and arguments):

==============  ===================================================================
``echo``        ``{text}`` → the text
``slow``        ``{marker}`` → writes ``started`` to the marker file, runs until
                cancelled (at most a minute); a cancelled call writes ``cancelled`` there
                and is not answered
``crash``       ``{}`` → the process ends at once with a non-zero status;
                ``{child: true}`` first starts a long-lived child with the default stdio
``noisy``       ``{how}`` → writes ``noisy HOW`` to stdout from package code (``print``:
                the language's print, ``stream``: the stdout stream object, ``fd``: file
                descriptor 1, ``child``: a child process inheriting stdout), then answers
                ``quiet HOW``
``big``         ``{size}`` → ``size`` characters
``rich``        ``{}`` → a reply carrying negotiated extras (when negotiated)
==============  ===================================================================

The scripted nimlet extensions have no ``noisy``: a plain extension owns its stdout (the
spec allows it nothing but protocol lines), so the rule on package code's output is for
runtimes that host package code.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from adapters.agent_plugins._launch import plan_plugin as plan_plugin_host
from adapters.nanobot import plan_nanobot
from adapters.pi import find_node as find_sidecar_node
from adapters.pi import plan_pi, sidecar_ready
from gateway.model import LaunchRefusal, LaunchSpec
from gateway.packages import install, load_adapters
from gateway.runtime import child_environment, find_node
from gateway.store import StateStore
from gateway.wire.features import EXTENSION_FEATURES, RUNTIME_FEATURES
from tests.conftest import Workspace

from ._wire import Launch

__all__ = ["RUNTIMES", "Runtime", "cases"]

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
SCRIPTED = HERE.parent / "fixtures"

Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Runtime:
    name: str
    plan: Callable[[Path], Launch]
    """How the gateway would launch it, given a scratch folder (the workspace is inside)."""
    prepare: Callable[[Workspace], None] | None
    """Make ``open_gateway`` on the workspace start it (install it, or write its
    ``extension.json``); None when the gateway would start it as another entry does (its
    gateway case would repeat that entry's)."""
    call: Callable[[str, dict[str, Any]], Call]
    """A behaviour and its arguments → the tool name and arguments to send."""
    behaviours: frozenset[str]
    features: frozenset[str]
    """What the gateway announces to it in ``initialize``."""
    uses_extras: bool
    """Whether, when negotiated, it sends ``gateway`` extras (register or replies)."""
    restarts: bool
    """Planned with ``restart``: the gateway restarts it after a crash."""
    unavailable: str | None = None
    """Why it cannot run here (its cases are skipped with this reason)."""
    known_bugs: Mapping[str, str] = field(default_factory=dict)
    """Contract rule → the bug that breaks it (``xfail(strict=True)``)."""


def cases(
    rule: str,
    needs: str | None = None,
    variants: tuple[str, ...] = (),
    *,
    gateway: bool = False,
) -> list[Any]:
    """``pytest.param``s of every runtime offering ``needs``, or of every (runtime, variant)
    pair; with ``gateway``, only the runtimes the gateway starts their own way (``prepare``).
    A known bug for ``rule`` (or ``rule:variant``) marks its case xfail."""
    params = []
    for runtime in RUNTIMES:
        if needs is not None and needs not in runtime.behaviours:
            continue
        if gateway and runtime.prepare is None:
            continue
        for variant in variants or (None,):
            key = rule if variant is None else f"{rule}:{variant}"
            marks: list[Any] = []
            if runtime.unavailable:
                marks.append(pytest.mark.skip(reason=runtime.unavailable))
            if key in runtime.known_bugs:
                marks.append(pytest.mark.xfail(strict=True, reason=runtime.known_bugs[key]))
            values = (runtime,) if variant is None else (runtime, variant)
            name = runtime.name if variant is None else f"{runtime.name}-{variant}"
            params.append(pytest.param(*values, id=name, marks=marks))
    return params


# ---------------------------------------------------------------------- scripted extensions

_SCRIPTED_DO = {"echo": "say", "slow": "slow", "crash": "crash", "big": "big"}


def _scripted_call(behaviour: str, arguments: dict[str, Any]) -> Call:
    return "act", {"do": _SCRIPTED_DO[behaviour], **arguments}


def _scripted(language: str, interpreter: str | None) -> Runtime:
    script = SCRIPTED / (
        "scripted_extension.py" if language == "python" else "scripted_extension.mjs"
    )

    def plan(scratch: Path) -> Launch:
        assert interpreter is not None
        config = scratch / "config.json"
        config.write_text("{}")
        command = [interpreter, str(script), str(config)]
        return Launch(command, child_environment(), _workspace(scratch))

    def prepare(workspace: Workspace) -> None:
        workspace.add_extension("contract", language=language)

    return Runtime(
        name=f"scripted-{language}",
        plan=plan,
        prepare=prepare,
        call=_scripted_call,
        behaviours=frozenset(_SCRIPTED_DO),
        features=EXTENSION_FEATURES,
        uses_extras=False,
        restarts=False,
        unavailable=None if interpreter else "no Node for the scripted Node extension",
    )


# ---------------------------------------------------------------------- sidecars


def _package_call(behaviour: str, arguments: dict[str, Any]) -> Call:
    return behaviour, arguments


def _launch(spec: LaunchSpec | LaunchRefusal, scratch: Path) -> Launch:
    assert isinstance(spec, LaunchSpec), spec
    return Launch(list(spec.command), child_environment(extra=spec.env), _workspace(scratch))


def _plan_pi(scratch: Path) -> Launch:
    root = FIXTURES / "pi-contract"
    entry = load_adapters().inspect(root)
    return _launch(plan_pi(entry.id, root, list(entry.entries)), scratch)


def _plan_pi_bare(scratch: Path) -> Launch:
    """The sidecar started as a plain nimlet host would start it: ``node sidecar.mjs SPEC``,
    protocol on fds 0/1 (it moves the protocol off them itself)."""
    launch = _plan_pi(scratch)
    shell, node = launch.command.index("-c"), launch.command.index("-c") + 2
    assert launch.command[shell - 1] == "/bin/sh", launch.command
    bare = [arg for arg in launch.command[node:] if not arg.startswith("--protocol-fds=")]
    return Launch(bare, launch.env, launch.cwd)


def _plan_nanobot(scratch: Path) -> Launch:
    entry = load_adapters().inspect(FIXTURES / "nanobot-contract")
    return _launch(plan_nanobot(entry, scratch / "home"), scratch)


def _plan_plugin_host(scratch: Path) -> Launch:
    """The fixture's `python3` server resolved where the mcp SDK is: this Python first on
    PATH, as for a user who installed the gateway (and so the SDK) in their environment."""
    entry = load_adapters().inspect(FIXTURES / "agent-plugins-contract")
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"
    try:
        spec = plan_plugin_host(entry, scratch / "home")
    finally:
        os.environ["PATH"] = path
    assert spec is not None
    return _launch(spec, scratch)


def _installer(fixture: str) -> Callable[[Workspace], None]:
    def prepare(workspace: Workspace) -> None:
        install_ready(workspace.config.home, FIXTURES / fixture)

    return prepare


def install_ready(home: Path, source: Path) -> str:
    """Install a package (nothing runs), then pass every gate; returns its id."""
    inspect = load_adapters().inspect
    package_id = install(home, str(source), kind="local", inspector=inspect).package.record.id
    with StateStore.open(home) as store:
        wanted = [p.name for p in inspect(store.get_package(package_id).record.path).permissions]
        if wanted:
            store.grant(package_id, wanted, wanted)
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


def _workspace(scratch: Path) -> Path:
    workspace = scratch / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    return workspace


def _pi_unavailable() -> str | None:
    problem = sidecar_ready() or (None if find_sidecar_node() else "no Node >= 22.19")
    return f"Pi sidecar not available: {problem}" if problem else None


_SIDECAR_BEHAVIOURS = frozenset({"echo", "slow", "crash", "crash_child", "noisy", "big"})

RUNTIMES: tuple[Runtime, ...] = (
    _scripted("python", sys.executable),
    _scripted("node", find_node()),
    Runtime(
        name="pi",
        plan=_plan_pi,
        prepare=_installer("pi-contract"),
        call=_package_call,
        behaviours=_SIDECAR_BEHAVIOURS | {"rich"},
        features=RUNTIME_FEATURES,
        uses_extras=True,
        restarts=True,
        unavailable=_pi_unavailable(),
    ),
    Runtime(
        name="pi-bare",
        plan=_plan_pi_bare,
        prepare=None,  # installed, pi-contract is started by the gateway as `pi` is
        call=_package_call,
        behaviours=_SIDECAR_BEHAVIOURS,
        features=RUNTIME_FEATURES,
        uses_extras=True,
        restarts=True,
        unavailable=_pi_unavailable(),
    ),
    Runtime(
        name="nanobot",
        plan=_plan_nanobot,
        prepare=_installer("nanobot-contract"),
        call=_package_call,
        behaviours=_SIDECAR_BEHAVIOURS,
        features=RUNTIME_FEATURES,
        uses_extras=True,  # register.gateway.diagnostics (its channel is metadata only)
        restarts=True,
    ),
    Runtime(
        name="plugin-host",
        plan=_plan_plugin_host,
        prepare=_installer("agent-plugins-contract"),
        call=lambda behaviour, arguments: (f"mcp_agent-plugins-contract_{behaviour}", arguments),
        # No `crash`: a server that dies leaves the host running (tests/agent_plugins).
        behaviours=frozenset({"echo", "slow", "noisy", "big"}),
        features=RUNTIME_FEATURES,
        uses_extras=True,  # register.gateway.diagnostics, tool replies' structured parts
        restarts=True,
    ),
)
