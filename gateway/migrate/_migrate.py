"""``migrate``: resolve a package, plan the output folder, write each target, report."""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gateway.base import (
    Diagnostic,
    GatewayConfig,
    GatewayError,
    PathRefused,
    Severity,
    gateway_version,
)
from gateway.migrate._codes import (
    MIGRATE_GATES_PENDING,
    MIGRATE_INSTALLED,
    MIGRATE_LOAD_FAILED,
    MIGRATE_LOAD_UNCONFINED,
    MIGRATE_NAME_REFUSED,
    MIGRATE_OUT_NOT_EMPTY,
    MIGRATE_SOURCE_UNUSABLE,
)
from gateway.migrate._files import write_text
from gateway.migrate._hosts import to_codex_plugin, to_gemini_extension
from gateway.migrate._model import Migration, Observation, Package
from gateway.migrate._nanobot import to_nanobot, to_nanobot_manifest
from gateway.migrate._observe import declared, observed, recorded
from gateway.migrate._report import render
from gateway.migrate._source import resolve
from gateway.migrate._targets import Writer, to_agent_plugin, to_mcp, to_nimlet
from gateway.migrate._throwaway import LoadFailed, load_in_throwaway
from gateway.packages import SourceError
from gateway.sandbox import SandboxUnavailable

__all__ = ["TARGETS", "MigrationError", "default_gateway_command", "migrate"]

TARGETS: dict[str, Writer] = {
    "nimlet": to_nimlet,
    "nanobot": to_nanobot,
    "mcp": to_mcp,
    "agent-plugin": to_agent_plugin,
    "nanobot-manifest": to_nanobot_manifest,
    "gemini-extension": to_gemini_extension,
    "codex-plugin": to_codex_plugin,
}
SERVED = frozenset({"nimlet", "nanobot", "mcp", "agent-plugin", "gemini-extension",
                    "codex-plugin"})  # fmt: skip
"""Targets whose output runs the package through ``gateway serve``: it must be installed."""


class MigrationError(GatewayError):
    """Nothing (useful) was written; ``diagnostic`` says why."""

    def __init__(self, diagnostic: Diagnostic, details: list[Diagnostic] | None = None) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
        self.details = details or []


def default_gateway_command() -> list[str]:
    """How the output starts this gateway: its ``gateway`` script by absolute path when it
    has one (a host's PATH may not have it), else this Python with ``-m gateway``."""
    script = Path(sys.prefix) / "bin" / "gateway"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "gateway"]


@dataclass(frozen=True, slots=True)
class _Plan:
    source: str
    target: str
    out: Path
    load: bool
    force: bool
    gateway: list[str]


def migrate(
    source: str,
    target: str,
    out: Path,
    *,
    config: GatewayConfig | None = None,
    load: bool = False,
    force: bool = False,
    gateway_command: list[str] | None = None,
) -> Migration:
    """Write the migration of ``source`` to ``target`` into ``out``. Raises
    ``MigrationError`` when nothing could be written."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r} (one of {', '.join(TARGETS)})")
    config = config or GatewayConfig()
    plan = _Plan(source, target, out.resolve(), load, force,
                 list(gateway_command or default_gateway_command()))  # fmt: skip
    _prepare_out(plan)
    with tempfile.TemporaryDirectory(prefix="gateway-migrate-") as scratch:
        try:
            package = resolve(source, config, serve=target in SERVED, scratch=Path(scratch))
        except SourceError as error:
            raise MigrationError(
                MIGRATE_SOURCE_UNUSABLE(f"cannot migrate {source}: {error}"), error.diagnostics
            ) from None
        migration = Migration(target, plan.out, package, Observation("declared"))
        if target in SERVED and package.installed and source != package.id:
            migration.note(
                MIGRATE_INSTALLED,
                f"installed {package.id} into {config.home} to serve it (nothing ran)",
            )
        migration.observation = _observation(migration, package, config, load)
        if config.home.resolve() != _default_home():
            migration.serve_args += ["--home", str(config.home.resolve())]
        try:
            _write(migration, plan, package)
        except PathRefused as error:  # a symlink into the output made meanwhile, say
            raise MigrationError(
                MIGRATE_NAME_REFUSED(f"nothing more was written: {error}", severity=Severity.ERROR)
            ) from None
    return migration


def _write(migration: Migration, plan: _Plan, package: Package) -> None:
    TARGETS[plan.target](migration, plan.gateway)
    if plan.target in SERVED and package.pending_gates:
        migration.note(
            MIGRATE_GATES_PENDING,
            f"{package.id} has not passed its gates; the output offers nothing until "
            f"it has: {'; '.join(package.pending_gates)}",
        )

    write_text(migration, "MIGRATION.md", render(migration, gateway_version()))


def _default_home() -> Path:
    return (Path.home() / ".gateway").resolve()


def _prepare_out(plan: _Plan) -> None:
    out = plan.out
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not plan.force or not out.is_dir():
            raise MigrationError(
                MIGRATE_OUT_NOT_EMPTY(
                    f"{out} exists and is not an empty folder; nothing was written",
                    hint="pass --force to replace its contents",
                )
            )
        for child in out.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    out.mkdir(parents=True, exist_ok=True)


def _observation(
    migration: Migration, package: Package, config: GatewayConfig, load: bool
) -> Observation:
    if load:
        try:
            loaded = load_in_throwaway(package.root, config)
        except SandboxUnavailable as error:
            migration.note(MIGRATE_LOAD_UNCONFINED, f"not loaded: {error}")
        except LoadFailed as error:
            migration.note(MIGRATE_LOAD_FAILED, str(error))
        else:
            if not loaded.confined:
                migration.note(
                    MIGRATE_LOAD_UNCONFINED,
                    "loaded without confinement (no Landlock here), in a private home and "
                    "workspace that were removed afterwards",
                )
            return observed(loaded)
    return recorded(package, config) or declared(package.entry)
