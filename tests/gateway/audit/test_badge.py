"""``gateway audit PKG --format badge``: a small self-contained SVG saying which host versions
a package works with. Real ``gateway audit`` subprocesses; the SVG must parse
(xml.etree) and say the right thing, and hostile package text must come out escaped."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from gateway.audit import AuditReport, PackageAudit, render

from .test_cli import gateway

FIXTURES = Path(__file__).parent / "fixtures"
SVG = "{http://www.w3.org/2000/svg}"


def badge(tmp_path: Path, *packages: str) -> ElementTree.Element:
    done = gateway(tmp_path, *(str(FIXTURES / p) for p in packages), "--format", "badge")
    assert done.returncode == 0, done.stderr
    return ElementTree.fromstring(done.stdout)


def texts(svg: ElementTree.Element) -> list[str]:
    return [t.text or "" for t in svg.iter(f"{SVG}text")]


def test_a_pi_package_works_with_the_current_pi(tmp_path):
    svg = badge(tmp_path, "pi-works")
    assert texts(svg) == ["works with", "Pi 1.6"]
    assert svg.findtext(f"{SVG}title") == "pi-works 1.0.0: works with Pi 1.6"


def test_a_surface_removed_in_2026_10_leaves_only_the_extended_stable_line(tmp_path):
    svg = badge(tmp_path, "oc-removed-2026-10")
    assert texts(svg) == ["works with", "OpenClaw 2026.9.36 LTS"]


def test_a_package_that_works_nowhere_says_so(tmp_path):
    svg = badge(tmp_path, "pi-all-events")  # listens to events Pi 0.65 removed
    assert texts(svg) == ["works with", "no current host version"]
    fills = [r.get("fill") for r in svg.iter(f"{SVG}rect")]
    assert fills == ["#555", "#c62828"]


def test_several_packages_get_a_row_each_named_after_the_package(tmp_path):
    svg = badge(tmp_path, "pi-works", "oc-removed-2026-10")
    assert texts(svg) == [
        "pi-works 1.0.0 works with",
        "Pi 1.6",
        "oc-removed-2026-10 1.0.0 works with",
        "OpenClaw 2026.9.36 LTS",
    ]


def test_hostile_package_text_is_escaped_and_stripped_of_control_characters():
    name = 'evil</text><script>alert(1)</script>&"\x1b[31m\u202e\x00'
    report = AuditReport(
        "static", "test", [PackageAudit(source=name, source_kind="local", id=name)]
    )
    other = PackageAudit(source="b", source_kind="local", id="b")
    report.packages.append(other)
    out = render(report, "badge")
    assert "<script>" not in out and "\x1b" not in out and "\u202e" not in out and "\x00" not in out
    svg = ElementTree.fromstring(out)  # well-formed whatever the name
    assert not list(svg.iter(f"{SVG}script")) and not list(svg.iter("script"))
    first = texts(svg)[0]
    assert first.startswith("evil</text><script>alert(1)") and "\x1b" not in first
    assert svg.get("aria-label", "").startswith("evil</text><script>")


def test_a_hostile_version_in_package_json_comes_out_escaped(tmp_path):
    root = tmp_path / "hostile"
    shutil.copytree(FIXTURES / "pi-works", root)
    package = json.loads((root / "package.json").read_text())
    package["version"] = "1.0.0</text><script>alert(1)</script>&\x1b[31m\u202e"
    (root / "package.json").write_text(json.dumps(package))
    done = gateway(tmp_path, str(root), "--format", "badge", "--output", "badge.svg")
    assert done.returncode == 0, done.stderr
    raw = (tmp_path / "badge.svg").read_text()
    assert "\x1b" not in raw and "\u202e" not in raw and "<script>" not in raw
    svg = ElementTree.fromstring(raw)
    assert svg.findtext(f"{SVG}title") == (
        "pi-works 1.0.0</text><script>alert(1)</script>&[31m: works with Pi 1.6"
    )
    assert texts(svg) == ["works with", "Pi 1.6"]
