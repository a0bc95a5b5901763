"""The sandbox policy of each process a gateway starts (docs/security.md).

- An installed package's runtime: what the package declares and the user granted
  (``policy_for_entry``), plus what its runtime needs (``LaunchSpec.reads`` / ``writes``,
  planned by its adapter).
- A ``tool.json`` tool: its folder and its interpreter; the workspace writable and the
  network open only for the capabilities it declares.
- A nimlet extension (``extension.json``): its folder and its interpreter. Its tools declare
  their capabilities only in ``register``, after it started, so its process gets nimlet's
  default for a tool that declares nothing (write + shell + network): the workspace
  writable and the network open — the user's home, other packages and the gateway's
  store stay out of reach.
- Extensions an adapter found in its ecosystem's own folders (Pi's ``.pi/extensions``):
  the defaults of a package that declares nothing (workspace read-only, no network).

Each carries the resource limits of the package it runs for: the defaults, with what its
``$gateway.limits`` setting changes (``Confinement.limits``).

With ``GatewayConfig.sandbox`` off, every policy is None and everything runs unconfined.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from gateway.base import CAPABILITIES, Diagnostic, GatewayConfig, ensure_home
from gateway.host import _codes
from gateway.sandbox import (
    ResourceLimits,
    SandboxPolicy,
    detect_support,
    grants_from,
    limits_from_settings,
    make_undumpable,
    node_runtime_paths,
    package_sandbox,
    policy_for_entry,
    python_runtime_paths,
    support_diagnostics,
)

TYPE_CHECKING = False  # `gateway status` uses describe_sandbox without loading the host
if TYPE_CHECKING:
    from gateway.host._state import GatewayState
    from gateway.model import LaunchSpec
    from gateway.packages import PackageStatus

__all__ = ["Confinement", "describe_sandbox", "prepare_run"]

_SHEBANG_BYTES = 256


class Confinement:
    """Builds policies for one open gateway (its workspace, home and switches)."""

    def __init__(self, state: GatewayState) -> None:
        self._state = state

    def limits(self, name: str) -> ResourceLimits:
        """The resource limits of ``name``'s processes: the defaults, changed by its
        ``$gateway.limits`` (``gateway config``); a value that cannot be used keeps its
        default and is said once (``sandbox.limits_invalid``)."""
        # Here, not at the top: `gateway status` imports this module without the packages.
        from gateway.packages import PackageConfigError, package_settings, read_package_config

        try:
            _, settings = package_settings(read_package_config(self._state.config.home, name))
        except PackageConfigError:
            settings = {}  # no config (or an id that cannot have one): the defaults
        limits, problems = limits_from_settings(settings.get("limits"), name)
        diagnostics = self._state.diagnostics
        for problem in problems:
            said = _codes.LIMITS_INVALID(f"{name}: {problem}", package=name)
            if said not in diagnostics.items:  # once per run, not once per process started
                diagnostics.add(said)
        return limits

    @property
    def enabled(self) -> bool:
        # Requiring the sandbox wins over switching it off: nothing runs unconfined then.
        config = self._state.config
        return config.sandbox or config.require_sandbox

    def package(self, status: PackageStatus, spec: LaunchSpec) -> SandboxPolicy | None:
        if not self.enabled:
            return None
        state = self._state
        built = policy_for_entry(
            status.entry,
            status.package.granted,
            home=state.config.home,
            workspace=state.workspace,
            runtime=_existing(spec.reads),
            limits=self.limits(status.id),
        )
        return built.policy.allowing(write=_existing(spec.writes))

    def shared(
        self, name: str, statuses: Sequence[PackageStatus], spec: LaunchSpec
    ) -> SandboxPolicy | None:
        """One process for several packages (``gateway.host._sharing``: only packages granted
        the same permissions share one): each member's folder readable, its data and temp
        folders writable, and the process's own (its ``TMPDIR``)."""
        if not self.enabled:
            return None
        state = self._state
        policy = self.package(statuses[0], spec)
        assert policy is not None
        for status in statuses[1:]:
            member = policy_for_entry(
                status.entry, status.package.granted, home=state.config.home,
                workspace=state.workspace,
            ).policy  # fmt: skip
            policy = policy.allowing(read=member.read, execute=member.execute, write=member.write)
        own = package_sandbox(
            home=state.config.home, package_id=name, package_root=None, workspace=None,
            grants=grants_from(()),
        ).policy  # fmt: skip
        # One process, one cgroup: the largest of its members' limits.
        first, *others = (self.limits(status.id) for status in statuses)
        limits = dataclasses.replace(first.widest(others), group=name)
        return dataclasses.replace(policy.allowing(write=own.write), limits=limits)

    def call(self, package_id: str, reads: Iterable[Path]) -> SandboxPolicy | None:
        """One call of a tool the gateway runs per call for an installed package (Nu's):
        the package's sandbox — its grants, its folder, its data and temp folders (where
        the call's scratch folder is) — plus what the call's runtime reads."""
        if not self.enabled:
            return None
        state = self._state
        status = next((s for s in state.packages if s.id == package_id), None)
        if status is None:  # not an installed package: nothing granted
            return package_sandbox(
                home=state.config.home, package_id=package_id, package_root=None,
                workspace=state.workspace, grants=grants_from(()), runtime=_existing(reads),
                limits=self.limits(package_id),
            ).policy  # fmt: skip
        return policy_for_entry(
            status.entry, status.package.granted, home=state.config.home,
            workspace=state.workspace, runtime=_existing(reads), limits=self.limits(package_id),
        ).policy  # fmt: skip

    def discovered(
        self, name: str, origin: Path, spec: LaunchSpec, granted: Iterable[str] = ()
    ) -> SandboxPolicy | None:
        """An extension found in its ecosystem's own folder: the defaults of a package that
        declares nothing, widened by what the user granted it by its id (``pi:NAME``)."""
        if not self.enabled:
            return None
        state = self._state
        built = package_sandbox(
            home=state.config.home,
            package_id=name,
            package_root=origin,
            workspace=state.workspace,
            grants=grants_from(granted),
            runtime=_existing(spec.reads),
            limits=self.limits(name),
        )
        return built.policy.allowing(write=_existing(spec.writes))

    def command(
        self, name: str, folder: Path, command: Sequence[str], capabilities: Iterable[str]
    ) -> SandboxPolicy | None:
        """An extension or tool run from ``folder`` by ``command``, whose tools declare
        ``capabilities`` (nimlet's names; ``write`` and ``network`` widen the sandbox).
        It may read and run what its command names and the gateway's own Python."""
        if not self.enabled:
            return None
        state = self._state
        declared = {c.lower() for c in capabilities} & CAPABILITIES
        built = package_sandbox(
            home=state.config.home,
            package_id=name,
            package_root=folder,
            workspace=state.workspace,
            grants=grants_from(declared),
            # The gateway's own Python too: a launcher script commonly runs `python`, and
            # the interpreter that runs the gateway is the one we know is there.
            runtime=(
                *interpreter_paths(
                    command,
                    folder,
                    state.env.get("PATH"),
                    protected=(state.config.user_home, state.config.home),
                ),
                *python_runtime_paths(),
            ),
            limits=self.limits(name),
        )
        return built.policy

    def environment(self, name: str) -> dict[str, str]:
        """What every child adds to its environment, confined or not: its private temp
        folder and its data folder (the places a confined child may write)."""
        built = package_sandbox(
            home=self._state.config.home,
            package_id=name,
            package_root=None,
            workspace=None,
            grants=grants_from(()),
        )
        return dict(built.environment)


def describe_sandbox(entry: object, granted: Iterable[str], config: GatewayConfig) -> str:
    """One line for ``status`` and ``inspect``: what a package's processes may reach
    beyond their runtime, their own folder and their data and temp folders."""
    if not (config.sandbox or config.require_sandbox):
        return "off (GATEWAY_SANDBOX=off): runs with everything the user can reach"
    if getattr(entry, "ecosystem", "") == "nimlet":
        # As Planner and OwnEntries decide: an extension's process gets nimlet's default for
        # tools that declare nothing, a tool.json tool what it declares.
        return (
            "extension process: workspace read-write, network open (nimlet's default); "
            "tool.json tools: as each declares; writes only its data and temp folders"
        )
    grants = grants_from(granted)
    workspace = "read-write" if grants.workspace_write else "read-only"
    network = "open" if grants.network else "closed"
    return f"workspace {workspace}, network {network}, writes only its data and temp folders"


def prepare_run(config: GatewayConfig) -> list[Diagnostic]:
    """What opening a gateway does once: its home made private and checked writable
    (``HomeUnusable`` otherwise); with the sandbox on, the gateway made non-dumpable — so
    no same-user process, an extension among them, reads its environment or memory
    through ``/proc`` — and what this kernel cannot enforce said once."""
    ensure_home(config.home)
    if not (config.sandbox or config.require_sandbox):
        return [_codes.SANDBOX_OFF("extensions run unconfined: the sandbox is switched off")]
    make_undumpable()
    return support_diagnostics(detect_support())


def _existing(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in paths if os.path.lexists(p))


def _root(executable: Path, protected: Sequence[Path]) -> Path:
    """The installation an executable belongs to: the folder above its ``bin`` (a venv, a
    pyenv root, /usr/local), else its own folder — never a folder holding a protected one
    (``~/bin/x`` gives ``~/bin``, not the home)."""
    parent = executable.parent
    root = parent.parent if parent.name in ("bin", "shims", "Scripts") else parent
    return parent if any(_beneath(p, root) for p in protected) else root


def _beneath(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _shebang(path: Path) -> list[str]:
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SHEBANG_BYTES)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if len(words) >= 2 and Path(words[0]).name == "env":
        return [words[0], *[w for w in words[1:] if not w.startswith("-")][:1]]
    return words[:1]


def interpreter_paths(
    command: Sequence[str],
    folder: Path,
    path_env: str | None,
    protected: Sequence[Path] = (),
) -> tuple[Path, ...]:
    """What running ``command`` needs to read and execute: each program it names (after a
    script's shebang and ``env``) with the installation it belongs to, the gateway's own
    interpreter when it is that one, Node's when it is Node, and files named as arguments.

    A manifest is hostile input: a path it names (a program given with a ``/``, an
    argument, a symlink in its folder) counts only inside ``folder`` or outside every
    ``protected`` folder (the user's home, ``GATEWAY_HOME``) — else naming ``~/.ssh/id_rsa``
    as an argument would open it. A bare program name is looked up on the user's own
    ``PATH``, which the manifest does not control (pyenv and nvm live in the home)."""
    guarded = [Path(os.path.realpath(p)) for p in protected]
    home = Path(os.path.realpath(folder))

    def allowed(path: Path, named: bool) -> bool:
        real = Path(os.path.realpath(path))
        if any(_beneath(p, real) for p in guarded):
            return False  # the home itself, or a folder holding it
        if not named or _beneath(real, home):
            return True
        return not any(_beneath(real, p) for p in guarded)

    found: list[Path] = []
    programs: list[str] = list(command[:1])
    first = Path(command[0]) if command else None
    if first is not None and first.is_file():
        programs += _shebang(first)
    for program in programs:
        named = "/" in program
        located = program if named else shutil.which(program, path=path_env)
        if not located:
            continue
        plain = Path(located).absolute()
        real = Path(os.path.realpath(plain))
        if not (allowed(plain, named) and allowed(real, named)):
            continue
        found += [p for p in (_root(plain, guarded), _root(real, guarded)) if allowed(p, named)]
        if real == Path(os.path.realpath(sys.executable)):
            found += python_runtime_paths()  # the gateway's own: its venv's packages too
        if real.name.startswith("node"):
            found += [p for p in node_runtime_paths(str(plain)) if allowed(p, named)]
    for argument in command[1:]:
        candidate = Path(argument) if os.path.isabs(argument) else folder / argument
        if candidate.is_file() and allowed(candidate, named=True):
            found.append(candidate.resolve())
    return _existing(dict.fromkeys(found))
