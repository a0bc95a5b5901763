"""docs/diagnostics.md and the code catalogue say the same thing."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import adapters
import gateway
from gateway.base import Diagnostic, Diagnostics, Severity, catalogue

DOC = Path(__file__).resolve().parents[1] / "docs" / "diagnostics.md"
ROW = re.compile(r"^\| `([a-z0-9_.-]+)` \| (error|warning|info) \|", re.MULTILINE)


def declared() -> dict[str, str]:
    for package in (gateway, adapters):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)
    return {code: entry.severity.value for code, entry in catalogue().items()}


def documented() -> dict[str, str]:
    return dict(ROW.findall(DOC.read_text(encoding="utf-8")))


def test_every_declared_code_is_documented_with_its_severity():
    codes, docs = declared(), documented()
    missing = {code: severity for code, severity in codes.items() if docs.get(code) != severity}
    assert missing == {}


def test_every_documented_code_is_declared():
    assert set(documented()) - set(declared()) == set()


def test_a_diagnostic_with_an_uncatalogued_code_cannot_be_made():
    with pytest.raises(ValueError, match="not in the catalogue"):
        Diagnostic("no.such_code", Severity.WARNING, "message")


def test_diagnostics_collector_keeps_order_and_reports_new_items():
    seen: list[str] = []
    collected = Diagnostics(listener=lambda d: seen.append(d.code))
    code = next(iter(catalogue()))
    collected.add(Diagnostic(code, Severity.INFO, "one"))
    mark = len(collected)
    collected.add(Diagnostic(code, Severity.INFO, "two"))
    assert [d.message for d in collected.since(mark)] == ["two"]
    assert seen == [code, code]


TITLES = {
    "manifest": "Manifests",
    "workspace": "Workspace trust",
    "resource": "Resources (tool.json, skills, prompts)",
    "skill": "Skills",
    "prompt": "Prompt templates",
    "extension": "Extension processes",
    "protocol": "Wire protocol",
    "ui": "User questions",
    "registry": "Registry",
    "event": "Events",
    "hook": "Hooks",
    "session": "Sessions",
    "tool": "Per-call tools",
    "store": "State store",
    "install": "Installing packages",
    "gate": "Activation gates",
    "lock": "Lockfiles (gateway lock, gateway sync)",
    "runtime": "Runtimes",
    "package": "Packages (all ecosystems)",
    "nimlet": "nimlet packages",
    "nu": "Nu packages",
    "nanobot": "nanobot packages",
    "sidecar": "Node sidecar",
    "pi": "Pi packages",
    "openclaw": "OpenClaw packages",
    "sandbox": "The sandbox",
    "home": "The gateway home",
    "cli": "The command line",
    "serve": "gateway serve",
    "migrate": "gateway migrate",
    "audit": "Compatibility audits (gateway audit)",
}
INTRO = """# Diagnostics

Every refusal, skip, fallback and unsupported API use becomes a diagnostic with a stable
`code`, a `severity` (error / warning / info), the `package` and `contribution` it concerns,
a `message` and sometimes a `hint`. `gateway list --json` and every `--json` output carry
them. This page lists every code the gateway emits; a test fails when code and page disagree,
and a diagnostic with an uncatalogued code cannot be constructed.

This page is generated from the catalogue: `python -m tests.test_diagnostics_catalogue`.
"""


def render() -> str:
    declared()
    groups: dict[str, list] = {}
    for entry in catalogue().values():
        groups.setdefault(entry.code.split(".")[0], []).append(entry)
    lines = [INTRO]
    for group in sorted(
        groups, key=lambda name: list(TITLES).index(name) if name in TITLES else 99
    ):
        lines += [
            f"## {TITLES.get(group, group)}",
            "",
            "| code | severity | trigger | what to do |",
            "|---|---|---|---|",
        ]
        for entry in groups[group]:
            cells = [entry.trigger, entry.remedy]
            trigger, remedy = (cell.replace("|", "\\|").replace("\n", " ") for cell in cells)
            lines.append(f"| `{entry.code}` | {entry.severity.value} | {trigger} | {remedy} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
