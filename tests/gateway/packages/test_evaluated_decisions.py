"""A package's status carries the decisions its gates were evaluated on. ``gateway enable``
made while ``evaluate_packages`` runs is not half in it (the gates read before, the package
record after): a served gateway records the digest of what it evaluated and would have
recorded a state it does not run — a package installed and enabled under a running
``serve`` was then never started (seen as a flaky tests/serve/test_reload.py in CI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.model import CatalogEntry
from gateway.packages import evaluate_packages, install, load_adapters
from gateway.store import StateStore, package_set_digest, package_set_fingerprint
from tests.adapters._helpers import write_tree

PI = {"name": "late", "version": "1.0.0", "pi": {"extensions": ["./index.ts"]}}


class _EnabledWhileInspected:
    """The installed adapters, enabling ``late`` the first time its metadata is read: after
    the evaluation listed the packages, before it read the refreshed record."""

    def __init__(self, home: Path) -> None:
        self._adapters, self._home, self.done = load_adapters(), home, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapters, name)

    def inspect(self, path: Path, ecosystem: str | None = None) -> CatalogEntry:
        if not self.done:
            self.done = True
            with StateStore.open(self._home) as store:
                store.set_enabled("late", True)
        return self._adapters.inspect(path, ecosystem)


def test_a_status_is_of_the_decisions_its_gates_read(tmp_path: Path) -> None:
    source = write_tree(
        tmp_path / "src", {"package.json": PI, "index.ts": "export default () => {};\n"}
    )
    home = tmp_path / "home" / ".gateway"
    install(home, str(source), kind="local", inspector=load_adapters().inspect)
    adapters = _EnabledWhileInspected(home)
    (status,) = evaluate_packages(home, adapters)  # type: ignore[arg-type]
    assert adapters.done
    assert status.enabled is False and status.package.enabled is False
    with StateStore.open(home) as store:
        preferred = store.preferred()
    # What was evaluated is not the store's state now: a follower evaluates again.
    assert package_set_digest([status.package], preferred) != package_set_fingerprint(home)
