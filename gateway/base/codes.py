"""The catalogue of diagnostic codes: every code the gateway and its adapters raise, and the
page ``docs/diagnostics.md`` made from it.

Each package declares the codes it raises in its own ``_codes.py`` (``define_code``). The
catalogue finds those modules by that name — under ``gateway/``, and under the package of
each ``extension_gateway.adapters`` entry point — and imports them, the way Django finds
each application's ``admin.py``: a code declared there is catalogued and documented without
being listed anywhere else. A code is reached by its name (``find_code``), the whole list
by ``catalogue()``; the constants stay in the package that raises them.

    python -m gateway.base.codes --markdown > docs/diagnostics.md
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from gateway.base.diagnostics import DiagnosticCode, declared_so_far
from gateway.base.names import ADAPTERS_ENTRY_POINT

__all__ = [
    "CATALOGUE_MODULE",
    "SECTIONS",
    "catalogue",
    "declaring_modules",
    "find_code",
    "markdown",
]

CATALOGUE_MODULE = "_codes"
"""The name of the module in which a package declares the codes it raises."""

_GATEWAY = Path(__file__).resolve().parent.parent

SECTIONS: dict[str, str] = {
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
    "search": "Tool search",
    "migrate": "gateway migrate",
    "audit": "Compatibility audits (gateway audit)",
    "diagnostics": "Diagnostics floods",
    "user_message": "User messages",
    "command": "Command replies",
    "permissions": "Permission files",
    "update": "Updating packages",
    "docs": "gateway docs",
    "completion": "Shell completion",
    "journal": "The call journal",
    "policy": "Policies",
    "claude": "Claude Code plugins",
    "agent_plugins": "Agent Plugins",
}
"""The page's sections, in order: a code's section is the part of its name before the dot."""

_INTRO = """# Diagnostics

Every refusal, skip, fallback and unsupported API use becomes a diagnostic with a stable
`code`, a `severity` (error / warning / info), the `package` and `contribution` it concerns,
a `message` and sometimes a `hint`. `gateway list --json` and every `--json` output carry
them. This page lists every code the gateway emits; a test fails when code and page disagree,
and a diagnostic with an uncatalogued code cannot be constructed.

This page is generated from the catalogue: `python -m gateway.base.codes --markdown`. A code
is declared in the `_codes.py` of the package that raises it.
"""


def _modules_under(folder: Path, package: str) -> list[str]:
    found = []
    for directory, subfolders, files in os.walk(folder):
        subfolders[:] = [name for name in subfolders if name.isidentifier()]
        if f"{CATALOGUE_MODULE}.py" in files:
            parts = Path(directory).relative_to(folder).parts
            found.append(".".join([package, *parts, CATALOGUE_MODULE]))
    return found


def declaring_modules() -> list[str]:
    """Every module that declares codes: each ``_codes`` of the gateway and of the adapters'
    packages, sorted by name."""
    # Imported here: only listing the whole catalogue pays for importlib.metadata.
    from importlib.metadata import entry_points
    from importlib.util import find_spec

    found = _modules_under(_GATEWAY, "gateway")
    points = entry_points(group=ADAPTERS_ENTRY_POINT)
    for package in sorted({point.module.partition(".")[0] for point in points}):
        spec = find_spec(package)
        folders = spec.submodule_search_locations if spec is not None else None
        for folder in folders or []:
            found += _modules_under(Path(folder), package)
    return sorted(set(found))


@functools.cache
def _load_all() -> None:
    for module in declaring_modules():
        importlib.import_module(module)


def catalogue() -> Mapping[str, DiagnosticCode]:
    """Every code, by name, in the page's order within a section: by declaring module,
    then as declared."""
    _load_all()
    codes = sorted(declared_so_far().values(), key=lambda entry: entry.module)
    return {entry.code: entry for entry in codes}


def find_code(code: str) -> DiagnosticCode | None:
    """The code named ``code`` (e.g. one a runtime reported), or None when none is declared.
    The modules that declare codes are loaded only when it is not one already known."""
    known = declared_so_far().get(code)
    if known is None:
        _load_all()
        known = declared_so_far().get(code)
    return known


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown() -> str:
    """``docs/diagnostics.md``: one section per code prefix, one row per code."""
    sections: dict[str, list[DiagnosticCode]] = {}
    for entry in catalogue().values():
        sections.setdefault(entry.code.split(".")[0], []).append(entry)
    order = {name: index for index, name in enumerate(SECTIONS)}
    lines = [_INTRO]
    for section in sorted(sections, key=lambda name: (order.get(name, len(order)), name)):
        lines += [
            f"## {SECTIONS.get(section, section)}",
            "",
            "| code | severity | trigger | what to do |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| `{entry.code}` | {entry.severity.value} | {_cell(entry.trigger)} | "
            f"{_cell(entry.remedy)} |"
            for entry in sections[section]
        ]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gateway.base.codes", description="The catalogue of diagnostic codes."
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print docs/diagnostics.md (else: one code a line)"
    )
    args = parser.parse_args(argv)
    if args.markdown:
        sys.stdout.write(markdown())
    else:
        for entry in catalogue().values():
            sys.stdout.write(f"{entry.code}\t{entry.severity.value}\t{entry.module}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
