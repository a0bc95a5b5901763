"""``MIGRATION.md``: what carried over, what did not and why (the diagnostics' codes and
words), what is left to do before the output runs, and how to use it."""

from __future__ import annotations

import re

from gateway.migrate._model import Migration

__all__ = ["render"]

_KNOWN = {
    "observed": "as they registered when the package was loaded once in a throwaway sandbox "
    "(`--load`); a tool it registers later (after a command, say) is not among them",
    "recorded": "as the package registered them the last time it started in this gateway",
    "declared": "as its manifest declares them (nothing was run)",
}


_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0))}
_CONTROLS |= {ord("\n"): " ", ord("|"): "\\|"}


def _cell(text: str) -> str:
    """One table cell: a NUL or an escape sequence shown, not acted on; one line."""
    return text.translate(_CONTROLS)


def _code(name: str) -> str:
    """A name as a code span, whatever backticks it holds (a fence longer than any)."""
    text = _cell(name.replace("\n", "\\n"))
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render(migration: Migration, gateway_version: str) -> str:
    package, entry = migration.package, migration.package.entry
    version = f" {entry.version}" if entry.version else ""
    lines = [
        f"# {entry.id}{version} ({entry.ecosystem}) → {migration.target}",
        "",
        f"Written by `gateway migrate` (extension-gateway {gateway_version}). Tools, commands "
        f"and hooks are listed {_KNOWN[migration.observation.known]}.",
        "",
        "## What carries over",
        "",
    ]
    if migration.carried:
        lines += ["| kind | name | how |", "|---|---|---|"]
        lines += [f"| {c.kind} | {_code(c.name)} | {_cell(c.how)} |" for c in migration.carried]
    else:
        lines.append("Nothing.")
    lines += ["", "## What does not carry over, and other notes", ""]
    if migration.notes:
        lines += ["| code | severity | what and why |", "|---|---|---|"]
        lines += [
            f"| `{d.code}` | {d.severity.value} | {_cell(d.message)} |" for d in migration.notes
        ]
        lines += ["", "The codes are explained in the gateway's docs/diagnostics.md."]
    else:
        lines.append("Everything the package contributes carries over.")
    if package.installed and package.pending_gates:
        lines += ["", "## Before it runs", "", "The package has not passed all its gates yet:", ""]
        lines += ["```sh", *package.pending_gates, "```"]
    if migration.usage:
        lines += ["", "## Using it", "", migration.usage]
    return "\n".join(lines) + "\n"
