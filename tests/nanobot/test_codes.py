"""The sidecar's diagnostic codes are catalogued (the host refuses uncatalogued ones) and
documented in docs/nanobot.md."""

from __future__ import annotations

from pathlib import Path

from adapters.nanobot.sidecar import _diagnostics
from gateway.base import catalogue

DOC = Path(__file__).resolve().parents[2] / "docs" / "nanobot.md"


def test_every_code_the_sidecar_reports_is_in_the_catalogue() -> None:
    assert set(_diagnostics.CODES) - set(catalogue()) == set()


def test_every_nanobot_runtime_code_is_documented_in_the_nanobot_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert [code for code in _diagnostics.CODES if f"`{code}`" not in text] == []
