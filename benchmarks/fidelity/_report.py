"""What a fidelity run says: the table on the terminal, the pass rates per ecosystem, the
signature the quick test compares, and the Markdown report (``run.py --markdown``)."""

from __future__ import annotations

import subprocess
from collections import Counter
from typing import Any

__all__ = ["commit", "markdown", "rates", "report", "signature", "summary", "verdict_text"]


def summary(view: Any) -> str:
    """What a view offers, counted: ``3t 1c 2e`` (tools, commands, events, …)."""
    parts = []
    for label, items in (
        ("t", view.tools),
        ("c", view.commands),
        ("f", view.flags),
        ("e", view.events),
        ("s", view.skills),
        ("p", view.prompts),
    ):
        if items:
            parts.append(f"{len(items)}{label}")
    if getattr(view, "unmapped", None):
        parts.append(f"{len(view.unmapped)}u")
    return " ".join(parts) or "nothing"


def verdict_text(record: dict[str, Any]) -> str:
    if record["verdict"] != "differs":
        return record["verdict"]
    causes = sorted({d["cause"] for d in record["differences"]})
    return "differs (" + ", ".join(causes) + ")"


def signature(record: dict[str, Any]) -> str:
    """What the quick test compares: the verdict and every difference, items included."""
    if record["verdict"] != "differs":
        return record["verdict"]
    diffs = sorted(
        f"{d['category']} {d['direction']} {','.join(sorted(d['items']))} [{d['cause']}]"
        for d in record["differences"]
    )
    return "differs: " + "; ".join(diffs)


def rates(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ecosystem in sorted({r["ecosystem"] for r in records}):
        mine = [r for r in records if r["ecosystem"] == ecosystem]
        counts = Counter(r["verdict"] for r in mine)
        loads = len(mine) - counts["broken upstream"] - counts["error"]
        out[ecosystem] = {
            "packages": len(mine),
            **{k: counts[k] for k in ("identical", "differs", "broken upstream", "error")},
            "pass_rate": round(counts["identical"] / len(mine), 3) if mine else None,
            "pass_rate_of_loading": round(counts["identical"] / loads, 3) if loads else None,
        }
    causes: Counter[str] = Counter()
    for r in records:
        for cause in {d["cause"] for d in r.get("differences", [])}:
            causes[cause] += 1
    out["causes"] = dict(causes.most_common())
    return out


def report(records: list[dict[str, Any]], seconds: float, out: Any) -> None:
    rows = [("package", "ecosystem", "host", "gateway", "verdict")]
    for r in records:
        rows.append(
            (
                r["name"],
                r["ecosystem"],
                r.get("host", ""),
                r.get("gateway", ""),
                verdict_text(r) if r["verdict"] != "error" else f"error: {r['why'][:80]}",
            )
        )
    widths = [
        min(max(len(str(row[i])) for row in rows), cap)
        for i, cap in enumerate((40, 9, 28, 28, 200))
    ]
    for n, row in enumerate(rows):
        cells = [str(c)[: widths[i]].ljust(widths[i]) for i, c in enumerate(row)]
        print("  ".join(cells).rstrip(), file=out)
        if n == 0:
            print("  ".join("-" * w for w in widths), file=out)
    print(file=out)
    totals = rates(records)
    for ecosystem, s in totals.items():
        if ecosystem == "causes":
            continue
        of_loading = s["pass_rate_of_loading"]
        loading = "n/a" if of_loading is None else f"{of_loading:.0%}"
        print(
            f"{ecosystem}: {s['identical']}/{s['packages']} identical "
            f"({s['pass_rate']:.0%}; {loading} of those "
            f"that load in their own host), {s['differs']} differ, "
            f"{s['broken upstream']} broken upstream, {s['error']} errors",
            file=out,
        )
    if totals["causes"]:
        print(
            "causes (packages): " + ", ".join(f"{c} {n}" for c, n in totals["causes"].items()),
            file=out,
        )
    print(f"{len(records)} packages in {seconds:.0f} s", file=out)


def commit(folder: str) -> str:
    found = subprocess.run(
        ["git", "-C", folder, "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() or "unknown"


def _describe(d: dict[str, Any]) -> str:
    if not d["items"]:
        return d["detail"][:160].replace("\n", " ")
    where = "not in the gateway" if d["direction"] == "missing" else "only in the gateway"
    return f"{d['category']} {where}: {', '.join(d['items'])}"


def markdown(data: dict[str, Any]) -> str:
    """The run for a person: pass rates, then every difference grouped by its cause."""
    from _compare import CAUSES

    records, totals = data["packages"], rates(data["packages"])
    lines = [f"# Fidelity, measured ({data['date']})", ""]
    sizes = ", ".join(f"{e} {s['packages']}" for e, s in totals.items() if e != "causes")
    lines += [f"Corpus: {len(records)} packages ({sizes}); one run, {data['seconds']:.0f} s.", ""]
    lines += [
        "| ecosystem | packages | identical | differs | broken upstream | error | "
        "pass rate | of those loading upstream |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for ecosystem, s in totals.items():
        if ecosystem == "causes":
            continue
        loading = s["pass_rate_of_loading"]
        lines.append(
            f"| {ecosystem} | {s['packages']} | {s['identical']} | {s['differs']} | "
            f"{s['broken upstream']} | {s['error']} | {s['pass_rate']:.0%} | "
            f"{'n/a' if loading is None else f'{loading:.0%}'} |"
        )
    lines += [
        "",
        "## Differences by cause",
        "",
        "A package with several causes counts under each.",
        "",
    ]
    for cause, count in totals["causes"].items():
        lines += [f"### {cause} — {count} package(s)", "", CAUSES.get(cause, ""), ""]
        for r in records:
            mine = [d for d in r.get("differences", []) if d["cause"] == cause]
            if not mine:
                continue
            what = "; ".join(_describe(d) for d in mine)
            lines.append(f"- `{r['name']}` ({r['ecosystem']}): {what}")
        lines.append("")
    for verdict, title in (("broken upstream", "Broken upstream"), ("error", "Errors")):
        mine = [r for r in records if r["verdict"] == verdict]
        if not mine:
            continue
        lines += [f"## {title}", ""]
        for r in mine:
            why = r.get("why") or "; ".join(r.get("host_view", {}).get("errors", []))
            lines.append(
                f"- `{r['name']}` ({r['ecosystem']}): {why[:200].replace(chr(10), ' ')}"
                f" — gateway: {r.get('gateway', 'n/a')[:80].replace(chr(10), ' ')}"
            )
        lines.append("")
    return "\n".join(lines)
