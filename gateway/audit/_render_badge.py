"""The report as a small self-contained SVG badge a README can show: "works with Pi 1.6 ·
OpenClaw 2026.11 and 2026.9.36 LTS", one row per package.

Package text is hostile: every string written into the SVG has its control characters
removed and is XML-escaped (text and attribute), and is cut to a bounded length; the badge
loads nothing (no fonts, links, scripts or images).
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from gateway.audit._model import AuditReport, PackageAudit

__all__ = ["badge_text", "render_badge"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_MAX = 120
_CHAR = 6.6  # px per character of the 11px sans-serif text, a generous estimate
_PAD = 6
_ROW = 20
_LEFT = "#555"
_WORKS = "#2e7d32"
_NOWHERE = "#c62828"
NOWHERE = "no current host version"


def _clean(text: str, limit: int = _MAX) -> str:
    """Package text made safe to place in XML: no control or bidi characters, bounded."""
    text = _CONTROL.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def badge_text(package: PackageAudit) -> str:
    """The right half of a package's badge: the host lines it works with, or that it works
    with none of the current ones."""
    works = package.works_with
    return " · ".join(works) if works else NOWHERE


def _width(text: str) -> int:
    return int(len(text) * _CHAR) + 2 * _PAD


def _left(package: PackageAudit, several: bool) -> str:
    """ "works with"; with several packages, which one the row is about."""
    return f"{_clean(package.label, 40)} works with" if several else "works with"


def _row(package: PackageAudit, y: int, label: str, left_width: int, right_width: int) -> str:
    right = _clean(badge_text(package))
    colour = _WORKS if package.works_with else _NOWHERE
    text_y = y + 14
    return (
        f'<rect x="0" y="{y}" width="{left_width}" height="{_ROW}" fill="{_LEFT}"/>'
        f'<rect x="{left_width}" y="{y}" width="{right_width}" height="{_ROW}" fill="{colour}"/>'
        f'<text x="{_PAD}" y="{text_y}">{escape(label)}</text>'
        f'<text x="{left_width + _PAD}" y="{text_y}">{escape(right)}</text>'
    )


def render_badge(report: AuditReport) -> str:
    """An SVG with one "works with" row per audited package (a failed package reads "no
    current host version")."""
    packages = report.packages
    rights = [_clean(badge_text(p)) for p in packages] or [NOWHERE]
    several = len(packages) > 1
    lefts = [_left(p, several) for p in packages] or ["works with"]
    left_width = max(_width(text) for text in lefts)
    right_width = max(_width(text) for text in rights)
    width, height = left_width + right_width, _ROW * max(1, len(packages))
    names = ", ".join(_clean(p.label, 80) for p in packages) or "no package"
    title = _clean(f"{names}: works with {' / '.join(rights)}", 600)
    rows = "".join(
        _row(package, index * _ROW, lefts[index], left_width, right_width)
        for index, package in enumerate(packages)
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" '
        f'width="{width}" height="{height}" role="img" aria-label={quoteattr(title)}>'
        f"<title>{escape(title)}</title>"
        f'<g font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" fill="#fff">'
        f"{rows}</g></svg>\n"
    )
