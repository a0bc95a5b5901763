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
from collections.abc import Iterable, Sequence
from pathlib import Path

from gateway.base import CAPABILITIES, Diagnostic, GatewayConfig, ensure_home
from gateway.host import _codes
from gateway.runtime import program_reads
from gateway.sandbox import (
    ResourceLimits,
    SandboxPolicy,
    detect_support,
    grants_from,
    limits_from_settings,
    make_undumpable,
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
                    home=state.config.user_home,
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
            "tool.json tools: as each declares; beyond the workspace, writes only its data "
            "and temp folders"
        )
    grants = grants_from(granted)
    workspace = "read-only"
    writes = "writes only its data and temp folders"
    if grants.workspace_write:  # as the install hint says of the grant
        workspace = "read-write (but .git, CI and agent configs)"
        writes = "writes the workspace and its data and temp folders"
    if grants.network:
        network = "network open (any host)"
    elif grants.destinations:
        shown = ", ".join(str(d) for d in grants.destinations)
        network = f"network to {shown} only (through the gateway's proxy)"
    else:
        network = "network closed"
    return f"workspace {workspace}, {network}, {writes} (a private /tmp and HOME)"


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


def interpreter_paths(
    command: Sequence[str],
    folder: Path,
    path_env: str | None,
    protected: Sequence[Path] = (),
    home: Path | None = None,
) -> tuple[Path, ...]:
    """What running ``command`` needs to read and execute: each program it names with what
    it runs and the installation it belongs to (``gateway.runtime.program_reads``: a path
    the manifest names counts only inside ``folder``, outside every ``protected`` folder or
    in a venv; toolchains' credential files never), and the files named as arguments —
    which count only inside ``folder`` or outside every ``protected`` folder, never a folder
    holding one (naming ``~/.ssh/id_rsa`` as an argument opens nothing)."""
    user_home = home if home is not None else (protected[0] if protected else Path.home())
    guarded = [Path(os.path.realpath(p)) for p in protected]
    own = Path(os.path.realpath(folder))
    found: list[Path] = list(
        program_reads(command[:1], path_env=path_env, home=user_home, guarded=protected, own=folder)
    )
    for argument in command[1:]:
        candidate = Path(argument) if os.path.isabs(argument) else folder / argument
        if not os.path.isfile(candidate):  # False for any name that cannot be a file
            continue
        real = Path(os.path.realpath(candidate))
        if any(_beneath(g, real) for g in guarded):
            continue
        if _beneath(real, own) or not any(_beneath(real, g) for g in guarded):
            found.append(real)
    return _existing(dict.fromkeys(found))


def _beneath(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
