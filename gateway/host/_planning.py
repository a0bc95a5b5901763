"""Launch plans: how each process the gateway starts is run — its command, environment,
log, timeouts, confinement and the protocol additions it is offered — for a discovered
``extension.json`` extension, a runtime an adapter found in its ecosystem's discovery
directories, an installed package's runtime, or one process shared by several packages;
and the ``initialize`` each is sent."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from gateway.base import DEFAULT_CAPABILITIES
from gateway.host._confinement import Confinement
from gateway.host._discovered_ids import extension_identity
from gateway.host._sharing import SharedLaunch
from gateway.host._state import GatewayState
from gateway.model import DiscoveredExtension, DiscoveredLaunch, LaunchRefusal, LaunchSpec
from gateway.packages import (
    RUNTIME_UNAVAILABLE,
    NoAdapters,
    PackageStatus,
    load_adapters,
)
from gateway.packages.environment import granted_environment
from gateway.runtime import resolve_command
from gateway.sandbox import SandboxPolicy
from gateway.store import STATE_FILE, StateStore, StoreError
from gateway.wire import InitializeMessage, LaunchPlan, log_path, runtime_log
from gateway.wire.features import EXTENSION_FEATURES, RUNTIME_FEATURES, announcement

__all__ = ["Planner"]

"""A discovered ``extension.json`` extension's grants are kept under ``nimlet:NAME``."""


class Planner:
    """Owns the ``Confinement`` every plan is confined by."""

    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._confinement = Confinement(state)

    def extension(
        self, found: DiscoveredExtension, package: str | None = None, granted: Iterable[str] = ()
    ) -> LaunchPlan:
        """A discovered ``extension.json`` extension, or one an installed ``package`` holds
        (its grants are that package's, ``granted``: the user's variables reach it only as
        granted, ``env:NAME``, as any runtime's); ``LaunchError`` when its command cannot be
        resolved."""
        state, manifest = self._state, found.manifest
        env = {**state.env, **granted_environment(granted)}
        command = resolve_command(list(manifest.command), found.folder, state.env.get("PATH"))
        # The folder's hash keeps two same-named extensions of different roots apart.
        digest = hashlib.sha256(str(found.folder).encode()).hexdigest()[:8]
        confinement = self._confinement
        return LaunchPlan(
            name=manifest.name,
            command=command,
            cwd=state.workspace,
            env={**env, **confinement.environment(manifest.name)},
            log_path=log_path(state.config.logs_dir, manifest.name, found.folder.name, digest),
            response_timeout=manifest.response_timeout_seconds,
            origin=found.folder / "extension.json",
            features=self._offered(EXTENSION_FEATURES),
            # Its tools declare their capabilities only in `register`: until then, nimlet's
            # default for a tool that declares none (write, shell, network).
            sandbox=confinement.command(manifest.name, found.folder, command, DEFAULT_CAPABILITIES),
            grants_id=extension_identity(manifest.name, package),
        )

    def discovered(self) -> list[LaunchPlan]:
        """What the adapters found in their ecosystems' own discovery directories, e.g.
        Pi's ``.pi/extensions``."""
        state = self._state
        try:
            adapters = load_adapters()
        except NoAdapters:
            return []  # reported once, with the packages
        found: list[DiscoveredLaunch] = adapters.discover(
            state.workspace, state.config.user_home, state.trusted, state.config.home
        )
        grants = extension_grants(state.config.home, [item.name for item in found])
        plans: list[LaunchPlan] = []
        for item in found:
            state.diagnostics.extend(item.diagnostics)
            if isinstance(item.launch, LaunchRefusal):
                state.diagnostics.add(
                    RUNTIME_UNAVAILABLE(
                        f"{item.name} ({item.origin}) not started: {item.launch.reason}",
                        package=item.name,
                        hint=item.launch.hint,
                    )
                )
            elif item.launch is not None:
                log = runtime_log(state.config.logs_dir, "discovered", item.name)
                granted = grants.get(item.name, frozenset())
                policy = self._confinement.discovered(item.name, item.origin, item.launch, granted)
                plans.append(
                    self._runtime(item.name, item.launch, item.origin, log, policy, granted)
                )
        return plans

    def package(self, status: PackageStatus, spec: LaunchSpec) -> LaunchPlan:
        """An installed package's runtime."""
        root = status.package.record.path
        log = runtime_log(self._state.config.logs_dir, "package", status.id, root.parent.name)
        policy = self._confinement.package(status, spec)
        return self._runtime(status.id, spec, root, log, policy, status.package.granted)

    def shared(self, group: SharedLaunch) -> LaunchPlan:
        """One process for several installed packages (``gateway.host._sharing``)."""
        log = runtime_log(self._state.config.logs_dir, "shared", group.name)
        origin = group.statuses[0].package.record.path
        policy = self._confinement.shared(group.name, group.statuses, group.spec)
        # Members granted different permissions run apart (``_sharing``): one grant set.
        granted = group.statuses[0].package.granted
        return self._runtime(group.name, group.spec, origin, log, policy, granted, group.members)

    def initialize(self, plan: LaunchPlan) -> InitializeMessage:
        return InitializeMessage(
            workspace=str(self._state.workspace),
            session_id=self._state.session.id,
            # A real nimlet host sends no announcement at all: strict plain v1 neither.
            gateway=None if self._state.config.plain_v1 else announcement(plan.features),
        )

    def _runtime(
        self,
        name: str,
        spec: LaunchSpec,
        origin: Path,
        log: Path,
        policy: SandboxPolicy | None,
        granted: Iterable[str],
        members: tuple[str, ...] = (),
    ) -> LaunchPlan:
        """A runtime an adapter planned: offered the protocol additions, restarted with
        backoff after a crash. The user's variables reach it only as granted (``env:NAME``)."""
        state = self._state
        passed = granted_environment(granted)
        return LaunchPlan(
            name=name,
            command=list(spec.command),
            cwd=state.workspace,
            env={**state.env, **passed, **self._confinement.environment(name), **spec.env},
            log_path=log,
            response_timeout=spec.response_timeout,
            start_timeout=spec.start_timeout,
            origin=origin,
            restart=True,
            features=self._offered(RUNTIME_FEATURES),
            sandbox=policy,
            members=members,
            tool_rules=spec.tool_rules,
        )

    def _offered(self, features: frozenset[str]) -> frozenset[str]:
        """In strict plain-v1 mode nothing is offered (``GatewayConfig.plain_v1``)."""
        return frozenset() if self._state.config.plain_v1 else features


def extension_grants(home: Path, names: Sequence[str]) -> dict[str, frozenset[str]]:
    """What the user granted each discovered extension by its id (``gateway permissions
    pi:NAME …``); nothing when there is no store yet or it cannot be read (the store's own
    problem is reported with the installed packages)."""
    if not names or not (home / STATE_FILE).exists():
        return {}
    try:
        with StateStore.open(home) as store:
            return {name: store.extension_granted(name) for name in names}
    except StoreError:
        return {}
