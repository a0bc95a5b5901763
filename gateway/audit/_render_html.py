"""The HTML report: one self-contained page (inline CSS and script, no network) with a
summary across packages, per package the contribution-by-host matrix coloured by status
(each cell opens to its reason and code), filters by host and by status, and the risk
signals. Every text from a package is escaped."""

from __future__ import annotations

from html import escape

from gateway.audit._model import AuditReport, PackageAudit, Row
from gateway.audit._support import HOSTS, Status
from gateway.base import counted

__all__ = ["render_html"]

_CSS = """
:root{--runs:#1a7f37;--partial:#9a6700;--meta:#0969da;--no:#cf222e;--na:#6e7781;--bg:#fff;
  --fg:#1f2328;--line:#d0d7de}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--fg);
  background:#f6f8fa}
header{background:#24292f;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#d0d7de}
main{padding:16px 24px;max-width:1500px}
section{background:var(--bg);border:1px solid var(--line);border-radius:8px;padding:12px 16px;
  margin:0 0 16px}
h2{font-size:17px;margin:4px 0 8px}
h3{font-size:14px;margin:12px 0 6px}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600;position:sticky;top:0}
td.name{font-family:ui-monospace,monospace;word-break:break-all}
.s{display:inline-block;border-radius:10px;padding:0 8px;color:#fff;font-size:12px;
  white-space:nowrap}
.s-runs{background:var(--runs)}
.s-partial{background:var(--partial)}
.s-metadata-only{background:var(--meta)}
.s-unsupported{background:var(--no)}
.s-not-applicable{background:var(--na)}
td.cell details summary{cursor:pointer;list-style:none}
td.cell details summary::-webkit-details-marker{display:none}
td.cell .why{font-size:12px;max-width:280px;margin-top:4px}
td.cell code{font-size:11px;background:#eff1f3;padding:0 3px;border-radius:3px}
.obs{font-weight:700;margin-left:2px}
.ev{font-size:12px;color:#57606a}
.filters{display:flex;gap:24px;flex-wrap:wrap;background:var(--bg);border:1px solid var(--line);
  border-radius:8px;padding:8px 16px;margin-bottom:16px}
.filters fieldset{border:0;margin:0;padding:0}
.filters legend{font-weight:600;padding:0}
.filters label{margin-right:10px;white-space:nowrap}
.meta{color:#57606a;margin:2px 0}
.risk-warning{color:#9a6700}
.risk-error{color:#cf222e}
ul{margin:4px 0;padding-left:20px}
.failed{border-color:var(--no)}
.hidden-row{display:none}
"""

_SCRIPT = """
(function(){
  const hosts=[...document.querySelectorAll('input[name=host]')];
  const statuses=[...document.querySelectorAll('input[name=status]')];
  function apply(){
    const shown=new Set(hosts.filter(h=>h.checked).map(h=>h.value));
    const wanted=new Set(statuses.filter(s=>s.checked).map(s=>s.value));
    document.querySelectorAll('[data-host]').forEach(el=>{el.style.display=shown.has(el.dataset.host)?'':'none';});
    document.querySelectorAll('tr.item').forEach(tr=>{
      const cells=[...tr.querySelectorAll('td.cell')].filter(td=>shown.has(td.dataset.host));
      const keep=cells.some(td=>wanted.has(td.dataset.status));
      tr.classList.toggle('hidden-row',!keep);
    });
    document.querySelectorAll('[data-count]').forEach(el=>{
      const table=document.getElementById(el.dataset.count);
      el.textContent=table.querySelectorAll('tr.item:not(.hidden-row)').length;
    });
  }
  hosts.concat(statuses).forEach(i=>i.addEventListener('change',apply));
  apply();
})();
"""


def render_html(report: AuditReport) -> str:
    title = f"gateway audit — {counted(len(report.packages), 'package')}"
    mode = (
        "static: metadata and a scan of the code; nothing ran"
        if report.mode == "static"
        else f"observed: each package loaded once in a throwaway sandbox (confirmed by {escape(report.confirmed_by or '')})"
    )
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<meta name=viewport content='width=device-width,initial-scale=1'>",
        "<meta http-equiv=Content-Security-Policy content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<header><h1>{escape(title)}</h1><p>{mode} · {escape(report.generator)}</p></header><main>",
        _filters(),
        _summary(report),
    ]
    parts += [_package(index, package) for index, package in enumerate(report.packages)]
    parts.append(f"</main><script>{_SCRIPT}</script></body></html>")
    return "".join(parts)


def _badge(status: Status, observed: bool = False) -> str:
    mark = "<span class=obs title='observed while loading'>*</span>" if observed else ""
    return f"<span class='s s-{status.value}'>{status.value}</span>{mark}"


def _filters() -> str:
    hosts = "".join(
        f"<label><input type=checkbox name=host value={h} checked> {h}</label>" for h in HOSTS
    )
    statuses = "".join(
        f"<label><input type=checkbox name=status value={s.value} checked> {_badge(s)}</label>"
        for s in Status
    )
    return (
        "<div class=filters><fieldset><legend>Hosts</legend>"
        f"{hosts}</fieldset><fieldset><legend>Show contributions with a status</legend>{statuses}</fieldset></div>"
    )


def _summary(report: AuditReport) -> str:
    head = "".join(f"<th data-host={h}>{h}</th>" for h in HOSTS)
    rows = []
    for index, package in enumerate(report.packages):
        if not package.ok:
            reason = escape(package.error.message if package.error else "")
            cells = "".join(f"<td data-host={h}>—</td>" for h in HOSTS)
            rows.append(
                f"<tr><td class=name>{escape(package.source)}</td><td>not audited</td>{cells}<td>{reason}</td></tr>"
            )
            continue
        cells = "".join(
            f"<td data-host={h} title='{escape(package.verdicts[h].reason, quote=True)}'>{_badge(package.verdicts[h].status)}</td>"
            for h in HOSTS
        )
        rows.append(
            f"<tr><td class=name><a href='#p{index}'>{escape(package.label)}</a></td>"
            f"<td>{escape(package.ecosystem)}</td>{cells}<td>{len(package.risks)}</td></tr>"
        )
    return (
        "<section id=summary><h2>Summary</h2><table><thead><tr><th>package</th><th>ecosystem</th>"
        f"{head}<th>risks</th></tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _package(index: int, package: PackageAudit) -> str:
    if not package.ok:
        reason = escape(package.error.message if package.error else "")
        code = escape(package.error.code if package.error else "")
        return f"<section id=p{index} class=failed><h2>{escape(package.source)}</h2><p>not audited <code>{code}</code>: {reason}</p></section>"
    meta = [
        f"<p class=meta>{escape(package.ecosystem)} package · runtime {escape(package.runtime)} · from {escape(package.source)}</p>"
    ]
    if package.description:
        meta.append(f"<p class=meta>{escape(package.description)}</p>")
    for target in package.targets:
        meta.append(
            f"<p class=meta>targets <b>{escape(target.api)}</b>: <code>{escape(target.value)}</code> {escape(target.note)}</p>"
        )
    if package.compatibility:
        works = " · ".join(package.works_with) or "no current host version"
        meta.append(f"<p class=meta>works with <b>{escape(works)}</b></p>")
        for names, refused, reasons in package.refusals():
            why = escape("; ".join(reasons[:3]))
            meta.append(
                f"<p class=meta>not {escape(names)} <code>{escape(refused or '')}</code>: {why}</p>"
            )
    if package.hosts:
        hosts = ", ".join(f"<code>{escape(host)}</code>" for host in package.hosts)
        meta.append(f"<p class=meta data-hosts>hosts its code names: {hosts}</p>")
    if package.observation is not None:
        seen = package.observation
        state = "loaded" if seen.loaded else f"did not load: {seen.error}"
        meta.append(
            f"<p class=meta>observed: {escape(state)} in {seen.seconds:.1f} s; sandbox: {escape(seen.sandbox)}</p>"
        )
    verdicts = "".join(
        f"<td data-host={h}>{_badge(package.verdicts[h].status)}<div class=ev>{escape(package.verdicts[h].reason)}</div></td>"
        for h in HOSTS
    )
    head = "".join(f"<th data-host={h}>{h}</th>" for h in HOSTS)
    table_id = f"rows{index}"
    rows = "".join(_row(row) for row in package.rows)
    parts = [
        f"<section id=p{index}><h2>{escape(package.label)}</h2>",
        *meta,
        f"<table class=verdicts><thead><tr><th>verdict</th>{head}</tr></thead><tbody><tr><td></td>{verdicts}</tr></tbody></table>",
        f"<h3>Contributions (<span data-count={table_id}>{len(package.rows)}</span> shown)</h3>",
        f"<table id={table_id}><thead><tr><th>kind</th><th>name</th>{head}<th>evidence</th><th>source</th></tr></thead><tbody>{rows}</tbody></table>",
    ]
    if package.risks:
        items = "".join(
            f"<li class=risk-{escape(r.severity)}><code>{escape(r.code)}</code> {escape(r.message)}"
            + (
                f" <span class=ev>{escape(r.path)}{':' + str(r.line) if r.line else ''}</span>"
                if r.path
                else ""
            )
            + (f"<div class=ev><code>{escape(r.excerpt)}</code></div>" if r.excerpt else "")
            + "</li>"
            for r in package.risks
        )
        parts.append(f"<h3>Risk signals ({len(package.risks)})</h3><ul class=risks>{items}</ul>")
    parts.append("</section>")
    return "".join(parts)


def _row(row: Row) -> str:
    cells = []
    for host in HOSTS:
        cell = row.cells[host]
        support = cell.support
        cells.append(
            f"<td class=cell data-host={host} data-status={support.status.value}><details>"
            f"<summary>{_badge(support.status, cell.observed)}</summary>"
            f"<div class=why><code>{escape(support.code)}</code> {escape(support.reason)}</div></details></td>"
        )
    evidence = ", ".join(e.value for e in row.evidence)
    return (
        f"<tr class=item><td>{escape(row.kind)}</td><td class=name>{escape(row.name)}</td>{''.join(cells)}"
        f"<td class=ev>{escape(evidence)}</td><td class='name ev'>{escape(row.source or '')}</td></tr>"
    )
