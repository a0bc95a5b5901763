"""Rendering a report in one of ``FORMATS``."""

from __future__ import annotations

from gateway.audit._model import AuditReport
from gateway.base import json_text

__all__ = ["FORMATS", "render"]

FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html", "sarif", "badge")


def render(report: AuditReport, format: str = "text") -> str:
    """The report as ``format``; raises ``ValueError`` for an unknown one."""
    if format == "text":
        from gateway.audit._render_text import render_text

        return render_text(report)
    if format == "json":
        return json_text(report.to_dict()) + "\n"
    if format == "markdown":
        from gateway.audit._render_markdown import render_markdown

        return render_markdown(report)
    if format == "html":
        from gateway.audit._render_html import render_html

        return render_html(report)
    if format == "sarif":
        from gateway.audit._render_sarif import render_sarif

        return json_text(render_sarif(report)) + "\n"
    if format == "badge":
        from gateway.audit._render_badge import render_badge

        return render_badge(report)
    raise ValueError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
