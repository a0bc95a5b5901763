"""What preparing a synced package to run said (a compile that failed) is in the sync's
report, as install's is in its own: it was dropped."""

from __future__ import annotations

from pathlib import Path

from gateway.base import Diagnostic, Severity
from gateway.model import CatalogEntry
from gateway.packages import load_adapters, lock_home, sync
from tests.gateway.packages._helpers import install_from, nanobot


def test_what_preparing_a_synced_package_said_is_reported(tmp_path: Path) -> None:
    first = tmp_path / "first"
    install_from(first, nanobot(tmp_path / "src", "prep.a"))
    prepared: list[str] = []

    def prepare(entry: CatalogEntry) -> list[Diagnostic]:
        prepared.append(entry.id)
        return [Diagnostic("pi.precompile_failed", Severity.WARNING, "x.ts did not compile",
                           package=entry.id)]  # fmt: skip

    report = sync(
        tmp_path / "second", lock_home(first), inspector=load_adapters().inspect, prepare=prepare
    )
    assert report.installed == prepared == ["prep.a"]
    said = [(d.code, d.package, d.message) for d in report.diagnostics]
    assert ("pi.precompile_failed", "prep.a", "x.ts did not compile") in said
