"""A Claude Code plugin's slash commands (``commands/*.md``), served by the gateway itself
and expanded by Claude Code's rules (its skills documentation, "pass arguments"):

- ``$ARGUMENTS`` is everything typed after the command, as typed;
- ``$ARGUMENTS[N]`` and its shorthand ``$N`` are the arguments split like a shell command
  (quotes group words), counted from 0; one that was not given is empty;
- ``$name`` for each name the front matter's ``arguments`` lists, in order;
- when the body has none of these and arguments were typed, Claude Code appends
  ``ARGUMENTS: <arguments>``;
- ``${CLAUDE_PLUGIN_ROOT}`` is the plugin's installed folder;
- ``${user_config.KEY}`` is the value of the plugin's option ``KEY`` when it is not
  ``sensitive`` (Claude Code's plugins reference: options fill skill and agent content "for
  non-sensitive values only"); a sensitive option, or one without a value, stays as written.

Values are not substituted again. A command with ``!`` shell lines is not served here: the
plugin host serves it, running each line ``allowed-tools`` allows in the plugin's sandbox
(``_shell_render``). ``model`` and ``disable-model-invocation`` are not applied (the command
is reported with ``claude.command_field_ignored`` at inspection).
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection
from adapters._skills import package_skill
from adapters.claude_plugins import _codes as codes
from adapters.claude_plugins._shell_lines import shell_line_issues
from gateway.model import CatalogEntry, Discovery, PromptTemplate, parse_front_matter

__all__ = [
    "ROOT",
    "argument_names",
    "command_issues",
    "expand",
    "package_resources",
    "parse_arguments",
    "shown_options",
    "substitute",
]

_IGNORED_FIELDS: Final = ("allowed-tools", "model", "disable-model-invocation")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ROOT: Final = "${CLAUDE_PLUGIN_ROOT}"


def parse_arguments(text: str) -> list[str]:
    """The typed arguments split like a shell command; plain words when the quoting is
    broken (an unclosed quote), as Claude Code falls back."""
    if not text.strip():
        return []
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def expand(
    body: str,
    arguments: str,
    *,
    names: tuple[str, ...] = (),
    root: str = "",
    options: Mapping[str, str] | None = None,
) -> str:
    """A command's prompt for the typed ``arguments``; ``options``: the values of the
    plugin's non-sensitive options."""
    text, used = substitute(
        body.replace(ROOT, root) if root else body, arguments, names, options=options
    )
    if not used and arguments.strip():
        text = f"{text}\n\nARGUMENTS: {arguments}"
    return text


def substitute(
    text: str,
    arguments: str,
    names: tuple[str, ...] = (),
    *,
    options: Mapping[str, str] | None = None,
) -> tuple[str, bool]:
    """``text`` with the argument placeholders filled, and whether it had any;
    ``${user_config.KEY}`` filled from ``options`` in the same pass (never again)."""
    args = parse_arguments(arguments)
    named = {name: args[i] if i < len(args) else "" for i, name in enumerate(names)}
    alternatives = [r"\$ARGUMENTS\[(?P<indexed>\d+)\]", r"\$ARGUMENTS\b", r"\$(?P<digit>\d+)(?!\w)"]
    if options:
        alternatives.append(r"\$\{user_config\.(?P<option>[A-Za-z_]\w*)\}")
    if named:
        longest_first = sorted(named, key=len, reverse=True)
        alternatives.append(r"\$(?P<name>" + "|".join(map(re.escape, longest_first)) + r")\b")
    pattern = re.compile("|".join(alternatives))
    used = False

    def replace(match: re.Match[str]) -> str:
        nonlocal used
        found = match.groupdict()
        if found.get("option"):
            return (options or {}).get(found["option"], match.group(0))
        used = True
        index = found.get("indexed") or found.get("digit")
        if index is not None:
            return args[int(index)] if int(index) < len(args) else ""
        if found.get("name"):
            return named[found["name"]]
        return arguments

    return pattern.sub(replace, text), used


def argument_names(front: dict[str, object]) -> tuple[str, ...]:
    """The front matter's ``arguments``: a list of names, or names separated by spaces."""
    raw = front.get("arguments")
    items = raw.split() if isinstance(raw, str) else raw
    if not isinstance(items, list):
        return ()
    return tuple(item for item in items if isinstance(item, str) and _NAME.match(item))


def command_issues(inspection: Inspection, rel: str, text: str) -> list[str]:
    """Say what the gateway will not apply when it expands this command (and return it)."""
    front = parse_front_matter(text)
    ignored: list[str] = [key for key in _IGNORED_FIELDS if key in front.data]
    runs_lines = shell_line_issues(inspection, rel, front.data, front.body)
    # `allowed-tools` decides which `!` lines run (said line by line just before); what it
    # does not do here is limit the model's own tool calls.
    reasons = {
        "allowed-tools": "`allowed-tools` limits only its `!` lines here, not the model's "
        "tool calls (the gateway's permission prompts apply)"
        if runs_lines
        else "`allowed-tools` is not applied (the gateway's permission prompts apply)",
        "model": "`model` is not applied (the gateway's model runs)",
        "disable-model-invocation": "`disable-model-invocation` is not applied",
    }
    if ignored:
        said = "; ".join(reasons[key] for key in ignored)
        inspection.add(codes.CLAUDE_COMMAND_FIELD_IGNORED(f"{rel}: {said}"))
    return ignored


def package_resources(entry: CatalogEntry, home: Path | None = None) -> Discovery:
    """The skills (listed) and slash commands of an installed plugin; with the gateway's
    ``home``, its commands fill ``${user_config.KEY}`` from the non-sensitive options."""
    options = shown_options(entry, home) if home is not None else {}
    root = Path(entry.root)
    inspection = Inspection(root)
    found = Discovery()
    for contribution in entry.contributions:
        rel = str(contribution.detail.get("path", ""))
        if contribution.kind == "skill":
            found.skills.append(
                package_skill(entry, contribution.name, contribution.description, rel)
            )
        elif contribution.kind == "prompt" and not contribution.detail.get("shell_lines"):
            # One with `!` lines is the plugin host's (`_shell_render`): it runs them.
            text = inspection.read_text(rel)
            if text is None:
                continue  # unreadable since inspection: `inspect` reports it
            front = parse_front_matter(text)
            body = front.body.strip("\n")
            rule: Any = functools.partial(
                expand, names=argument_names(front.data), root=str(root), options=options
            )
            description = contribution.description or _first_line(body)
            found.prompts.append(
                PromptTemplate(
                    contribution.name, description, body, root / rel, "package", entry.id, rule
                )
            )
    found.diagnostics += inspection.finish(entry.id)
    return found


def shown_options(entry: CatalogEntry, home: Path) -> dict[str, str]:
    """The values of the plugin's options that may appear in text the model reads: the
    non-sensitive ones (stored, else their default). A sensitive one never does."""
    from adapters.claude_plugins._user_config import option_values

    options = dict(entry.metadata.get("user_config") or {})
    shown = {key: option for key, option in options.items() if not option.get("sensitive")}
    if not shown:
        return {}
    values, _ = option_values(entry.id, shown, home)  # a missing one stays as written
    return values


def _first_line(body: str) -> str:
    return next((line.strip() for line in body.splitlines() if line.strip()), "")[:100]
