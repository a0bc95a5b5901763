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

import importlib
import os
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from adapters import _codes as codes
from adapters._files import Inspection, safe_is_dir, safe_is_file
from gateway.base import Diagnostic
from gateway.model import Adapter, CatalogEntry, DiscoveredLaunch

__all__ = [
    "ADAPTERS",
    "BUILTIN",
    "ECOSYSTEMS",
    "BuiltinAdapters",
    "detect_ecosystem",
    "get_adapter",
    "inspect_package",
]

_KNOWN: tuple[tuple[str, str, str, bool], ...] = (
    ("agent-plugins", "adapters.agent_plugins", "AgentPluginsAdapter", False),
    ("nanobot", "adapters.nanobot", "NanobotAdapter", False),
    ("openclaw", "adapters.openclaw", "OpenClawAdapter", True),
    ("pi", "adapters.pi", "PiAdapter", True),
    ("nu", "adapters.nu", "NuAdapter", False),
    ("codex", "adapters.codex", "CodexAdapter", False),
    ("claude", "adapters.claude_plugins", "ClaudePluginsAdapter", False),
    ("gemini", "adapters.gemini", "GeminiAdapter", False),
    ("nimlet", "adapters.nimlet", "NimletAdapter", False),
)
"""Every adapter in detection order: its ecosystem, its package, its class, and whether it
discovers extensions in folders of its own. An adapter is imported when it is first used
(its package and modules are ~100 ms of a short command's start); one that discovers says
where through its package's ``discovery_roots(workspace, user_home)``, so a workspace's
discovery loads it only when one of those folders is there. The others' ``discover``
returns [] (``tests/adapters/test_registry_lazy.py`` holds both to it)."""

ECOSYSTEMS: tuple[str, ...] = tuple(ecosystem for ecosystem, *_ in _KNOWN)

_loaded: dict[str, Adapter] = {}
_loading = threading.Lock()  # the gateway asks from worker threads: one instance each


def _load(ecosystem: str) -> Adapter:
    with _loading:
        adapter = _loaded.get(ecosystem)
        if adapter is None:
            _, package, name, _ = next(row for row in _KNOWN if row[0] == ecosystem)
            adapter = _loaded[ecosystem] = getattr(importlib.import_module(package), name)()
        return adapter


def _every() -> tuple[Adapter, ...]:
    return tuple(_load(ecosystem) for ecosystem in ECOSYSTEMS)


def __getattr__(name: str) -> tuple[Adapter, ...]:
    if name == "ADAPTERS":  # every adapter, loaded only when asked for (PEP 562)
        return _every()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


TYPE_CHECKING = False
if TYPE_CHECKING:
    ADAPTERS: tuple[Adapter, ...]


def get_adapter(ecosystem: str) -> Adapter | None:
    return _load(ecosystem) if ecosystem in ECOSYSTEMS else None


def detect_ecosystem(root: Path | str) -> list[Adapter]:
    """Every adapter that recognises ``root``, in ADAPTERS order (the first one wins)."""
    root = Path(root)
    if not safe_is_dir(root):
        return []
    return [adapter for adapter in _every() if _safe_detect(adapter, root)]


def _discover(
    workspace: Path, user_home: Path, trusted: bool, home: Path
) -> list[DiscoveredLaunch]:
    """What the adapters find in their ecosystems' own folders, in detection order; an
    adapter none of whose folders is there is not loaded (it would find nothing)."""
    found: list[DiscoveredLaunch] = []
    for ecosystem, package, _, discovers in _KNOWN:
        if not discovers:
            continue
        roots = importlib.import_module(package).discovery_roots
        if any(os.path.isdir(root) for root in roots(workspace, user_home)):
            found += _load(ecosystem).discover(workspace, user_home, trusted, home)
    return found


def inspect_package(root: Path | str, ecosystem: str | None = None) -> CatalogEntry:
    """The catalog entry for the package at ``root``; never raises for bad input.

    ``ecosystem`` forces an adapter (its missing manifest is then a diagnostic);
    otherwise the first adapter that detects the package reads it.
    """
    root = Path(root)
    adapter = get_adapter(ecosystem) if ecosystem is not None else None
    if ecosystem is not None and adapter is None:
        known = ", ".join(ECOSYSTEMS)
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
                    f"{root}: no nimlet, Nu, nanobot, Pi, OpenClaw, Agent Plugin, Claude "
                    "Code plugin, Codex plugin or Gemini CLI extension metadata"
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
        return _every()

    def inspect(self, root: Path, ecosystem: str | None = None) -> CatalogEntry:
        return inspect_package(root, ecosystem)

    def adapter(self, ecosystem: str) -> Adapter | None:
        return get_adapter(ecosystem)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return _discover(workspace, user_home, trusted, home)


BUILTIN = BuiltinAdapters()
