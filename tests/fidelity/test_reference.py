"""The harness's rule for which OpenClaw a plugin is measured against
(benchmarks/fidelity/_openclaw_reference.py): the newest release of the band of OpenClaw
releases whose rules the gateway applies for the plugin's declared floor."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[2] / "benchmarks" / "fidelity"
sys.path.insert(0, str(HARNESS))

from _openclaw_reference import (  # noqa: E402
    PINNED_OPENCLAW,
    NoReference,
    openclaw_reference,
    reference_for,
)


@pytest.mark.parametrize(
    ("floor", "reference"),
    [
        ((0, 0, 0), "2026.4.29"),  # `*`: admits the oldest, loaded as the jiti-only hosts
        ((2026, 3, 2), "2026.4.29"),
        ((2026, 4, 30), "2026.4.29"),
        ((2026, 5, 2), "2026.7.35"),  # the first with the contracts.tools check
        ((2026, 7, 99), "2026.7.35"),
        ((2026, 8, 0), PINNED_OPENCLAW),
        ((2026, 10, 1), PINNED_OPENCLAW),
        (None, PINNED_OPENCLAW),  # nothing declared: loaded as the pinned one
    ],
)
def test_a_plugin_is_measured_against_the_newest_release_of_its_declared_band(
    floor: tuple[int, int, int] | None, reference: str
) -> None:
    assert reference_for(floor) == reference


def test_a_declared_band_without_a_release_has_no_reference() -> None:
    # 2026.5.0 and 2026.5.1 were never published: nothing applies those rules
    with pytest.raises(NoReference, match="no OpenClaw release"):
        reference_for((2026, 5, 1))


def _plugin(root: Path, peer: str | None) -> Path:
    root.mkdir()
    (root / "openclaw.plugin.json").write_text('{"id": "p", "configSchema": {}}')
    package = {"name": "p", "version": "1.0.0", "openclaw": {"extensions": ["./index.js"]}}
    if peer:
        package["peerDependencies"] = {"openclaw": peer}
    (root / "package.json").write_text(json.dumps(package))
    (root / "index.js").write_text("module.exports = { register() {} };\n")
    return root


def test_the_declarations_are_read_as_the_gateway_reads_them(tmp_path: Path) -> None:
    assert openclaw_reference(_plugin(tmp_path / "old", "^2026.3.2")) == "2026.4.29"
    assert openclaw_reference(_plugin(tmp_path / "mid", ">=2026.5.7")) == "2026.7.35"
    assert openclaw_reference(_plugin(tmp_path / "none", None)) == PINNED_OPENCLAW
