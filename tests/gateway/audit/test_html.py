"""The HTML report in a real headless Chromium (Debian's ``chromium``): it renders the summary
and every package, with no console errors and no request leaving the page; cells open to
their reason and code; the host and status filters work; and a screenshot is taken
(``GATEWAY_AUDIT_SCREENSHOT=path`` keeps it, as docs/audit.md's was made)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.audit import AuditReport, audit, render
from gateway.base import GatewayConfig

from ._chromium import Browser, find_chromium
from ._npm_audit import joined, npm_static_report

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium (apt-get install chromium)")


@pytest.fixture(scope="module")
def page(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[tuple[Browser, str, AuditReport]]:
    """The report of the real packages (made once per run) and of a source that fails."""
    base = tmp_path_factory.mktemp("html")
    failed = audit(["./not/a/package"], config=GatewayConfig(home=base / "gateway", user_home=base))
    report = joined(npm_static_report(tmp_path_factory, request), failed)
    path = base / "audit.html"
    path.write_text(render(report, "html"), encoding="utf-8")
    assert CHROMIUM is not None
    browser = Browser(CHROMIUM)
    try:
        session = browser.open(path)
        yield browser, session, report
    finally:
        browser.close()


def test_the_page_renders_every_package_without_errors(page):
    browser, session, report = page
    assert browser.evaluate(
        session, "document.querySelectorAll('#summary tbody tr').length"
    ) == len(report.packages)
    assert browser.evaluate(session, "document.querySelectorAll('section[id^=p]').length") == len(
        report.packages
    )
    assert browser.problems() == []
    requests = {
        e["params"]["request"]["url"]
        for e in browser.events
        if e.get("method") == "Network.requestWillBeSent"
    }
    assert requests == {browser.evaluate(session, "location.href")}  # self-contained: only itself


def test_a_cell_opens_to_its_code_and_reason(page):
    browser, session, _ = page
    script = """(() => {
      const cell = [...document.querySelectorAll('td.cell[data-host=openclaw]')]
        .find(td => td.textContent.includes('openclaw.tool_contract'));
      const details = cell.querySelector('details');
      const before = details.open;
      cell.querySelector('summary').click();
      return [before, details.open, getComputedStyle(cell.querySelector('.why')).display];
    })()"""
    assert browser.evaluate(session, script) == [False, True, "block"]


def test_the_host_filter_hides_a_column(page):
    browser, session, _ = page
    script = """(() => {
      const box = document.querySelector('input[name=host][value=nimlet]');
      box.click();
      const hidden = [...document.querySelectorAll('[data-host=nimlet]')].every(el => el.style.display === 'none');
      box.click();
      const shown = [...document.querySelectorAll('[data-host=nimlet]')].every(el => el.style.display === '');
      return [hidden, shown];
    })()"""
    assert browser.evaluate(session, script) == [True, True]


def test_the_status_filter_keeps_only_rows_with_that_status(page):
    browser, session, _ = page
    script = """(() => {
      const boxes = [...document.querySelectorAll('input[name=status]')];
      boxes.filter(b => b.value !== 'unsupported').forEach(b => b.click());
      const hosts = [...document.querySelectorAll('input[name=host]')];
      hosts.filter(h => h.value !== 'gateway').forEach(h => h.click());
      const visible = [...document.querySelectorAll('tr.item:not(.hidden-row)')];
      const ok = visible.length > 0 && visible.every(tr =>
        tr.querySelector('td.cell[data-host=gateway]').dataset.status === 'unsupported');
      boxes.filter(b => !b.checked).forEach(b => b.click());
      hosts.filter(h => !h.checked).forEach(h => h.click());
      const all = document.querySelectorAll('tr.item.hidden-row').length === 0;
      return [ok, all];
    })()"""
    assert browser.evaluate(session, script) == [True, True]


def test_a_screenshot_of_the_page(page, tmp_path):
    browser, session, _ = page
    target = Path(os.environ.get("GATEWAY_AUDIT_SCREENSHOT") or tmp_path / "audit.png")
    browser.evaluate(session, "document.querySelector('#p4 td.cell details summary').click(), true")
    browser.screenshot(session, target)
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
