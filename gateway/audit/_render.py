"""Rendering a report in one of ``FORMATS``."""

from __future__ import annotations

import json

from gateway.audit._model import AuditReport

__all__ = ["FORMATS", "render"]

FORMATS: tuple[str, ...] = ("text", "json", "markdown", "html", "sarif")


def render(report: AuditReport, format: str = "text") -> str:
    """The report as ``format``; raises ``ValueError`` for an unknown one."""
    if format == "text":
        from gateway.audit._render_text import render_text

        return render_text(report)
    if format == "json":
        return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    if format == "markdown":
        from gateway.audit._render_markdown import render_markdown

        return render_markdown(report)
    if format == "html":
        from gateway.audit._render_html import render_html

        return render_html(report)
    if format == "sarif":
        from gateway.audit._render_sarif import render_sarif

        return json.dumps(render_sarif(report), indent=2, ensure_ascii=False) + "\n"
    raise ValueError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")
