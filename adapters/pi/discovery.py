"""Pi's auto-discovery directories as a source of extensions (pi-upstream.md §1.2).

``<workspace>/.pi/extensions`` (only when the workspace is trusted), then
``~/.pi/agent/extensions`` (or ``$PI_CODING_AGENT_DIR/extensions``), one level deep: a
``*.ts``/``*.js`` file loads directly; a subdirectory loads its ``package.json``
``pi.extensions``, else ``index.ts``, else ``index.js``. Each extension found (a file, or a
folder with its entries) runs in a sidecar of its own as ``pi:<name>`` — its sandbox, its
data folder, its grants (``gateway permissions pi:<name> …``): Pi loads every extension into
its own process, so one could patch what another relies on; the gateway does not share
that. Load order is kept for the registry's collision rules (Pi's: the first tool wins).
"""

from __future__ import annotations

from pathlib import Path

from adapters._files import Inspection
from adapters.pi import _codes as codes
from adapters.pi._launch import plan_pi_shared, timeout
from adapters.pi._resources import Resources
from adapters.pi._roots import extension_dirs
from gateway.model import DiscoveredLaunch

__all__ = ["UNTRUSTED_NAME", "discover", "extension_dirs", "find_extensions"]

UNTRUSTED_NAME = "pi:project"
"""Who a report of the skipped extensions of an untrusted workspace is about."""


def find_extensions(directory: Path) -> list[tuple[str, Path, list[str]]]:
    """``(pi:<name>, root, entries)`` for each extension one level inside ``directory``."""
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return []
    found: list[tuple[str, Path, list[str]]] = []
    for child in children:
        if child.name.startswith(".") or child.name == "node_modules":
            continue
        if child.is_file() and child.suffix in (".ts", ".js"):
            found.append((f"pi:{child.name}", directory, [child.name]))
        elif child.is_dir():
            entries = Resources(Inspection(child))._extension_dir_entries("")
            if entries:
                found.append((f"pi:{child.name}", child, entries))
    return found


def discover(workspace: Path, user_home: Path, trusted: bool, home: Path) -> list[DiscoveredLaunch]:
    """Every discovered Pi extension, each its own sidecar launch (none found → [])."""
    packages: list[tuple[str, Path, list[str]]] = []
    for directory in extension_dirs(workspace, user_home, trusted):
        seen = {name for name, _, _ in packages}  # same name: the project's wins
        packages += [item for item in find_extensions(directory) if item[0] not in seen]
    # Pi's agent dir (extension settings) lives under the gateway home, as for packages.
    env = {"PI_CODING_AGENT_DIR": str(home / "pi" / "agent")}
    launches = [
        DiscoveredLaunch(
            name=name, origin=root, launch=plan_pi_shared([(name, root, entries)], env, timeout())
        )
        for name, root, entries in packages
    ]
    return [*_untrusted_project(workspace, trusted), *launches]


def _untrusted_project(workspace: Path, trusted: bool) -> list[DiscoveredLaunch]:
    """Report, without starting anything, project extensions skipped for lack of trust."""
    directory = workspace / ".pi" / "extensions"
    if trusted or not find_extensions(directory):
        return []
    note = codes.PI_PROJECT_EXTENSIONS_UNTRUSTED(
        f"{directory}: Pi extensions not loaded, the workspace is not trusted",
        hint=f"gateway trust {workspace}",
    )
    return [
        DiscoveredLaunch(name=UNTRUSTED_NAME, origin=directory, launch=None, diagnostics=[note])
    ]
