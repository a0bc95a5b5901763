"""What an observed load registered: the ``register`` message — and, from a recording
sidecar, every registration, API call and probe with the file and line that made it — read
into found items, each with the gateway's support corrected by what the load showed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gateway.audit import _codes
from gateway.audit._assemble import Observed
from gateway.audit._model import Observation
from gateway.audit._support import Evidence, Found, HostKnowledge, Item, Status, Support
from gateway.base import Diagnostic, find_code
from gateway.model import CatalogEntry
from gateway.wire import RegisterMessage

__all__ = ["read_register"]

_REGISTERED = frozenset({"tool", "command"})


def read_register(
    entry: CatalogEntry,
    register: RegisterMessage,
    knowledge: Mapping[str, HostKnowledge],
    observed: Observed,
    observation: Observation,
) -> None:
    extras = register.gateway or {}
    record = extras.get("record") if isinstance(extras.get("record"), dict) else None
    reported = [d for d in extras.get("diagnostics") or [] if isinstance(d, dict)]
    observed.diagnostics += [_diagnostic(entry, d) for d in reported if _diagnostic(entry, d)]  # type: ignore[misc]
    registered = {("tool", t.name) for t in register.tools or []}
    registered |= {("command", c.name) for c in register.commands}
    sources: dict[tuple[str, str], str] = {}
    items: list[Item] = []
    if record is not None:
        observation.calls = [c for c in record.get("calls") or [] if isinstance(c, dict)]
        apis = set()
        for registration in record.get("registrations") or []:
            if not isinstance(registration, dict):
                continue
            kind, name = str(registration.get("kind")), str(registration.get("name"))
            api = str(registration.get("api") or "")
            apis.add(api)
            items.append(Item(kind, name, entry.ecosystem, {"api": api}))
            sources.setdefault((kind, name), str(registration.get("source") or ""))
        for call in observation.calls:
            api = str(call.get("api"))
            if api not in apis:
                items.append(Item("api", api, entry.ecosystem, {"api": api}))
                sources.setdefault(("api", api), str(call.get("source") or ""))
        for probe in record.get("probes") or []:
            if isinstance(probe, dict):
                api = str(probe.get("api"))
                items.append(Item("api", api, entry.ecosystem, {"api": api, "probe": True}))
                sources.setdefault(("api", api), str(probe.get("source") or ""))
    else:
        items += [
            Item("hook", event, entry.ecosystem, {"api": "events"})
            for event in register.events or []
        ]
    seen = {(item.kind, item.name) for item in items}
    items += [
        Item(kind, name, entry.ecosystem, {})
        for kind, name in sorted(registered)
        if (kind, name) not in seen
    ]
    own = knowledge.get(entry.ecosystem)
    for item in items:
        key = (item.kind, item.name)
        source, _, line = sources.get(key, "").rpartition(":")
        found_line = int(line) if line.isdigit() else None
        where = source if found_line else sources.get(key) or "register"
        observed.items.append(Found(item, where, found_line, Evidence.OBSERVED))
        if own is not None:
            observed.gateway[key] = _observed_support(own, entry, item, key in registered, reported)


def _observed_support(
    own: HostKnowledge,
    entry: CatalogEntry,
    item: Item,
    registered: bool,
    reported: list[dict[str, Any]],
) -> Support:
    """The documented answer, corrected by what the load showed: registered tools and
    commands run; a runtime diagnostic naming the item gives the code and reason."""
    known = own.gateway_support(entry, item)
    api = str(item.detail.get("api") or "")
    names = {item.name, api} - {""}
    said = next((d for d in reported if d.get("contribution") in names and d.get("code")), None)
    if item.kind in _REGISTERED:
        if registered:
            return (
                known
                if known.status in (Status.RUNS, Status.PARTIAL)
                else Support(Status.RUNS, _codes.AUDIT_RUNS.code, "registered")
            )
        if said is not None:
            return Support(Status.UNSUPPORTED, str(said["code"]), str(said.get("message", "")))
        return Support(
            known.status, _codes.NOT_REGISTERED.code, f"called, but not registered: {known.reason}"
        )
    if said is not None and known.status is not Status.RUNS:
        return Support(known.status, str(said["code"]), str(said.get("message", "")))
    return known


def _diagnostic(entry: CatalogEntry, item: dict[str, Any]) -> Diagnostic | None:
    code = find_code(str(item.get("code")))
    if code is None:
        return None
    contribution = item.get("contribution")
    return code(
        str(item.get("message", "")),
        package=entry.id,
        contribution=str(contribution) if contribution is not None else None,
    )
