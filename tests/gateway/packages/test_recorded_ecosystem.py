"""An installed package whose content is what the user trusted is read by the adapter of
its recorded ecosystem: the load does not ask every adapter again which format it is. A
package not trusted, or whose files changed since, is detected afresh."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.model import CatalogEntry
from gateway.packages import evaluate_packages, install, load_adapters
from gateway.store import StateStore
from tests.adapters._helpers import write_tree

PI = {"name": "recorded", "version": "1.0.0", "pi": {"extensions": ["./index.ts"]}}


class _Asked:
    """The installed adapters, noting the ecosystem each inspection was given."""

    def __init__(self) -> None:
        self._adapters = load_adapters()
        self.asked: list[str | None] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adapters, name)

    def inspect(self, path: Path, ecosystem: str | None = None) -> CatalogEntry:
        self.asked.append(ecosystem)
        return self._adapters.inspect(path, ecosystem)


def _installed(tmp_path: Path) -> tuple[Path, Path]:
    source = write_tree(
        tmp_path / "src", {"package.json": PI, "index.ts": "export default () => {};\n"}
    )
    home = tmp_path / "home" / ".gateway"
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    assert report.package is not None
    return home, Path(report.package.record.path)


def test_a_trusted_package_is_read_by_its_recorded_ecosystem(tmp_path: Path) -> None:
    home, _ = _installed(tmp_path)
    with StateStore.open(home) as store:
        store.set_trusted("recorded", True)
    adapters = _Asked()
    (status,) = evaluate_packages(home, adapters)  # type: ignore[arg-type]
    assert adapters.asked == ["pi"]
    assert status.entry.ecosystem == "pi" and status.trusted


def test_a_package_not_trusted_is_detected_afresh(tmp_path: Path) -> None:
    home, _ = _installed(tmp_path)
    adapters = _Asked()
    (status,) = evaluate_packages(home, adapters)  # type: ignore[arg-type]
    assert adapters.asked == [None]
    assert status.entry.ecosystem == "pi" and not status.trusted


def test_a_trusted_package_whose_files_changed_is_detected_afresh(tmp_path: Path) -> None:
    home, installed = _installed(tmp_path)
    with StateStore.open(home) as store:
        store.set_trusted("recorded", True)
    (installed / "package.json").unlink()
    (installed / "extension.json").write_text('{"name": "recorded", "command": ["true"]}')
    adapters = _Asked()
    (status,) = evaluate_packages(home, adapters)  # type: ignore[arg-type]
    assert adapters.asked == [None]
    assert status.entry.ecosystem == "nimlet" and not status.trusted
    assert "gate.content_changed" in {d.code for d in status.diagnostics}
