"""The adapters in detection order: the ``AdapterSet`` the gateway reaches through the
``extension_gateway.adapters`` entry point (``BUILTIN``).

Order matters: an Agent Plugin's ``plugin.json`` names an agent-plugins.org schema, the
surest signal, so it is checked first; a nanobot manifest wraps Pi and OpenClaw runtimes,
so it is checked next; an OpenClaw plugin may also carry a ``pi``-less package.json, so
it precedes Pi; a Claude Code plugin (``.claude-plugin/plugin.json``) is read as one unless
a nanobot, OpenClaw, Pi or Nu manifest claims the folder (the host-specific manifest is the
more specific signal; OpenClaw itself prefers its native format only when the package also
declares ``openclaw.extensions``); a Codex plugin (``.codex-plugin/plugin.json``) precedes
Claude's, as Codex itself reads its own manifest before ``.claude-plugin``'s (a root Agent
Plugin stays the Agent Plugins adapter's, which reads it as Codex does); a Gemini CLI
extension's ``gemini-extension.json`` is its own; nimlet is last because its skills/prompts
folders are the loosest signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from adapters import _codes as codes
from adapters._files import Inspection, safe_is_dir, safe_is_file
from adapters.agent_plugins import AgentPluginsAdapter
from adapters.claude_plugins import ClaudePluginsAdapter
from adapters.codex import CodexAdapter
from adapters.gemini import GeminiAdapter
from adapters.nanobot import NanobotAdapter
from adapters.nimlet import NimletAdapter
from adapters.nu import NuAdapter
from adapters.openclaw import OpenClawAdapter
from adapters.pi import PiAdapter
from gateway.base import Diagnostic
from gateway.model import Adapter, CatalogEntry

__all__ = [
    "ADAPTERS",
    "BUILTIN",
    "BuiltinAdapters",
    "detect_ecosystem",
    "get_adapter",
    "inspect_package",
]

ADAPTERS: tuple[Adapter, ...] = (
    AgentPluginsAdapter(),
    NanobotAdapter(),
    OpenClawAdapter(),
    PiAdapter(),
    NuAdapter(),
    CodexAdapter(),
    ClaudePluginsAdapter(),
    GeminiAdapter(),
    NimletAdapter(),
)


def get_adapter(ecosystem: str) -> Adapter | None:
    return next((a for a in ADAPTERS if a.ecosystem == ecosystem), None)


def detect_ecosystem(root: Path | str) -> list[Adapter]:
    """Every adapter that recognises ``root``, in ADAPTERS order (the first one wins)."""
    root = Path(root)
    if not safe_is_dir(root):
        return []
    return [adapter for adapter in ADAPTERS if _safe_detect(adapter, root)]


def inspect_package(root: Path | str, ecosystem: str | None = None) -> CatalogEntry:
    """The catalog entry for the package at ``root``; never raises for bad input.

    ``ecosystem`` forces an adapter (its missing manifest is then a diagnostic);
    otherwise the first adapter that detects the package reads it.
    """
    root = Path(root)
    adapter = get_adapter(ecosystem) if ecosystem is not None else None
    if ecosystem is not None and adapter is None:
        known = ", ".join(a.ecosystem for a in ADAPTERS)
        return _empty(
            root,
            ecosystem,
            codes.UNKNOWN_ECOSYSTEM(f"unknown ecosystem {ecosystem!r}; known: {known}"),
        )
    if not safe_is_dir(root):
        return _empty(root, ecosystem or "unknown", codes.ROOT_INVALID(f"{root}: not a directory"))
    if adapter is None:
        detected = detect_ecosystem(root)
        if not detected:
            broken = _unparsable_manifests(root)
            if broken:
                return _empty(root, "unknown", *broken)
            return _empty(
                root,
                "unknown",
                codes.NOT_DETECTED(
                    f"{root}: no nimlet, Nu, nanobot, Pi, OpenClaw, Agent Plugin or Claude "
                    "Code plugin metadata"
                ),
            )
        adapter = detected[0]
    try:
        return adapter.inspect(root)
    except Exception as error:  # a bug in an adapter must not take the caller down
        return _empty(
            root,
            adapter.ecosystem,
            codes.ADAPTER_FAILED(f"{adapter.ecosystem} adapter failed: {error!r}"),
        )


def _safe_detect(adapter: Adapter, root: Path) -> bool:
    try:
        return adapter.detect(root)
    except Exception:  # detection is a guess; a crashing guess is a "no"
        return False


_MANIFESTS = ("plugin.json", "nanobot.extension.json", "openclaw.plugin.json", "package.json",
              "extension.json", "tool.json", "tool.yaml", ".claude-plugin/plugin.json")  # fmt: skip
"""Every ecosystem's metadata file: one that is there but does not parse is why nothing
detected the package, and says so (``package.json_invalid``), not "no metadata"."""


def _unparsable_manifests(root: Path) -> list[Diagnostic]:
    probe = Inspection(root)
    for name in _MANIFESTS:
        if not safe_is_file(root / name):
            continue
        if name.endswith(".yaml"):
            probe.read_yaml(name, required=False)
        else:
            probe.read_json_object(name, required=False)
    return list(probe.diagnostics)


def _empty(root: Path, ecosystem: str, *diagnostics: Diagnostic) -> CatalogEntry:
    name = root.name or str(root)
    return CatalogEntry(
        id=name,
        name=name,
        version="",
        ecosystem=ecosystem,
        root=str(root),
        diagnostics=[replace(diagnostic, package=name) for diagnostic in diagnostics],
    )


class BuiltinAdapters:
    """The built-in adapters as an ``AdapterSet`` (gateway.model)."""

    @property
    def adapters(self) -> Sequence[Adapter]:
        return ADAPTERS

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_package(root)

    def adapter(self, ecosystem: str) -> Adapter | None:
        return get_adapter(ecosystem)


BUILTIN = BuiltinAdapters()
