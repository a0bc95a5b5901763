"""One package's verdict: what its own host and the gateway registered, side by side, and
each difference with its cause (``_compare``)."""

from __future__ import annotations

from typing import Any

from _claude import claude_differences
from _compare import _NATIVE, HOST_VIEWS, Difference, _load_cause, differences, gateway_view
from _corpus import Package
from _report import summary


def judge(pkg: Package, host: dict[str, Any], gw: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "name": pkg.name,
        "ecosystem": pkg.ecosystem,
        "source": pkg.source,
        **({"reference": host["openclaw"]} if "openclaw" in host else {}),
        "seconds": {"host": host.get("seconds"), "gateway": gw.get("seconds")},
    }
    setup = str(host.get("setup_failed", ""))
    if any(code in setup for code in ("ETARGET", "E404", "notarget", "error 404")):
        # its own installer fails on what the registry says: the package cannot be installed
        record.update(
            verdict="broken upstream",
            host="fails: " + setup[:120],
            gateway="n/a",
            why=setup,
            differences=[],
        )
        return record
    if "unavailable" in host or "crashed" in host or "setup_failed" in host:
        why = host.get("unavailable") or host.get("crashed") or host.get("setup_failed")
        record.update(
            verdict="error", why=f"own host: {why}", host="n/a", gateway="n/a", differences=[]
        )
        return record
    host_view, loaded = HOST_VIEWS[pkg.ecosystem](host)
    record["host_view"] = host_view.to_dict()
    if "failed" in gw and "list" not in gw:
        gw_view = None
        record["gateway_view"] = {"errors": [gw["failed"]]}
    else:
        gw_view = gateway_view(gw.get("list", {}))
        record["gateway_view"] = gw_view.to_dict()
    record["host"] = summary(host_view) if loaded else "fails: " + "; ".join(host_view.errors)[:120]
    record["gateway"] = (
        summary(gw_view)
        if gw_view and not gw_view.errors
        else ("fails: " + ("; ".join(gw_view.errors) if gw_view else gw["failed"])[:120])
    )
    if not loaded:
        record.update(verdict="broken upstream", differences=[])
        return record
    if gw_view is None:
        failed = gw["failed"]
        cause = (
            "gateway-timeout"
            if "timed out" in failed
            else (
                "gateway-install-failed" if failed.startswith("install") else _load_cause([failed])
            )
        )
        if cause == "gateway-install-failed" and _NATIVE.search(failed):
            cause = "native-deps"
        diffs = [Difference("load", "load", [], cause, failed[:400])]
    else:
        if pkg.ecosystem == "claude":
            diffs = claude_differences(host_view, gw_view, host)
        else:
            diffs = differences(pkg.ecosystem, host_view, gw_view, host)
    record["differences"] = [d.to_dict() for d in diffs]
    record["verdict"] = "identical" if not diffs else "differs"
    return record
