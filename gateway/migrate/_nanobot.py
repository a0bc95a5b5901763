"""The ``nanobot`` targets. ``nanobot`` writes what released nanobot (0.3.x, PyPI
``nanobot-ai``) loads: an Agent Plugin (``plugin.json``, ``mcp.json``, ``skills/``) in its
workspace's ``plugins/`` folder, enabled by the user, whose MCP server is ``gateway serve
--mcp`` (nanobot/agent/plugins.py in the release). ``nanobot-manifest`` rewraps the
package's files with a ``nanobot.extension.json``, the unreleased extension-manifest format
the gateway's nanobot path reads."""

from __future__ import annotations

import re
import shlex

from gateway.migrate._codes import (
    MIGRATE_CONTRIBUTIONS_UNKNOWN,
    MIGRATE_NAME_ADJUSTED,
    MIGRATE_NOT_CARRIED,
    MIGRATE_OUTPUT_INVALID,
    MIGRATE_TARGET_UNSUPPORTED,
)
from gateway.migrate._files import copy_package, write_json
from gateway.migrate._model import Migration
from gateway.migrate._targets import NOT_PORTABLE, write_agent_plugin
from gateway.packages import load_adapters

__all__ = ["NANOBOT_WORKSPACE", "nanobot_tool_name", "to_nanobot", "to_nanobot_manifest"]

NANOBOT_WORKSPACE = "~/.nanobot/workspace"
"""Released nanobot's default workspace (``agents.defaults.workspace``); its Agent Plugins
live in ``<workspace>/plugins/<folder>/``."""


def nanobot_tool_name(server: str, kind: str, name: str) -> str:
    """The tool name nanobot gives an MCP server's tool (``mcp_<server>_<tool>``) or prompt
    (``mcp_<server>_prompt_<name>``): characters outside ``[A-Za-z0-9_-]`` as ``_``, runs of
    ``_`` as one (a name over 64 characters nanobot shortens with a hash, not predicted)."""
    middle = "" if kind == "tool" else f"{kind}_"
    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_-]", "_", f"mcp_{server}_{middle}{name}"))


def _nanobot_how(server: str, kind: str, name: str) -> str:
    tool = nanobot_tool_name(server, kind, name)
    if kind == "tool":
        return f"a nanobot tool `{tool}`"
    return f"a nanobot tool `{tool}` (an MCP prompt: the tool returns it)"


def to_nanobot(migration: Migration, gateway: list[str]) -> None:
    name = write_agent_plugin(migration, gateway, host=_nanobot_how)
    folder = f"{NANOBOT_WORKSPACE}/plugins/{name}"
    enable = (
        "from pathlib import Path; from nanobot.agent.plugins import set_agent_plugin_enabled; "
        f"set_agent_plugin_enabled(Path('{NANOBOT_WORKSPACE}').expanduser(), '{name}', True)"
    )
    migration.usage = (
        "This is an **Agent Plugin** (Agent Plugins 1.0), the form released nanobot (0.3.x, "
        "`pip install nanobot-ai`) loads: nanobot finds it in its workspace's `plugins/` "
        "folder, and once it is enabled starts the `mcp.json` server and offers the "
        "`skills/`. (Released nanobot has no `nanobot extensions` command; the "
        "`nanobot.extension.json` manifest is the unreleased format, `--to nanobot-manifest`.)"
        "\n\n"
        "1. Copy the folder into the workspace's `plugins/` folder (the workspace is "
        "`agents.defaults.workspace` in `~/.nanobot/config.json`, by default "
        f"`{NANOBOT_WORKSPACE}`):\n\n"
        f"       mkdir -p {NANOBOT_WORKSPACE}/plugins && cp -r {shlex.quote(str(migration.out))} "
        f"{folder}\n\n"
        "2. Enable it — an installed plugin stays off until then: in nanobot's web UI "
        f"(`nanobot webui`), Settings → MCP, the Agent Plugin `{name}` → Enable; or with "
        "the Python nanobot is installed in:\n\n"
        f'       python -c "{enable}"\n\n'
        "   nanobot binds the enablement to the folder's content: after changing any file "
        "in it, enable it again.\n"
        "3. The web UI reloads nanobot's MCP servers; after enabling from Python, restart "
        "nanobot. It starts the server as `mcp.json` says, so `gateway` must be on the PATH "
        "nanobot runs with, and the package must have passed its gates in this gateway. Its "
        f"tools are nanobot tools named `mcp_{name}_<tool>`; its commands and prompt "
        f"templates tools named `mcp_{name}_prompt_<name>`; its skills nanobot skills (and "
        f"`mcp_{name}_resource_<skill>` tools)."
    )


_NANOBOT_RUNTIME = {"pi": "pi", "openclaw": "openclaw", "nanobot": None}
_NANOBOT_NAME = re.compile(r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?")


def to_nanobot_manifest(migration: Migration, gateway: list[str]) -> None:
    entry = migration.package.entry
    if entry.ecosystem not in _NANOBOT_RUNTIME:
        migration.note(
            MIGRATE_TARGET_UNSUPPORTED,
            f"a {entry.ecosystem} package has no nanobot form: nanobot runs python, pi and "
            "openclaw runtimes (try --to nanobot, nimlet, mcp or agent-plugin)",
        )
        return
    copy_package(migration)
    if entry.ecosystem == "nanobot":
        migration.carry("manifest", "nanobot.extension.json", "already a nanobot package: copied")
        for c in entry.contributions:
            migration.carry(c.kind, c.name, "declared in its manifest")
    else:
        _write_nanobot_manifest(migration)
    written = load_adapters().inspect(migration.out)
    problems = [d.message for d in written.diagnostics if d.severity.value == "error"]
    if written.ecosystem != "nanobot" or problems:
        for problem in problems or ["the strict nanobot reader did not take it"]:
            migration.note(MIGRATE_OUTPUT_INVALID, f"nanobot.extension.json: {problem}")
    migration.files.append(migration.out / "nanobot.extension.json")
    migration.usage = (
        "`nanobot.extension.json` is nanobot's **unreleased** extension-manifest format: no "
        "released nanobot (0.3.x) reads it (released nanobot loads Agent Plugins: "
        "`gateway migrate PKG --to nanobot`). The gateway runs the folder as a nanobot "
        f"package: `gateway install {migration.out}`."
    )


def _write_nanobot_manifest(migration: Migration) -> None:
    entry, observation = migration.package.entry, migration.observation
    package_id = entry.id.lower().lstrip("@").replace("/", ".")
    package_id = re.sub(r"[^a-z0-9._-]+", "-", package_id).strip("._-") or "package"
    if package_id != entry.id:
        migration.note(MIGRATE_NAME_ADJUSTED, f"nanobot id {package_id!r} (lowercase ids)")
    contributions: list[dict[str, object]] = []
    # What nanobot does with each kind of a Pi / OpenClaw package (its compatibility matrix).
    how = {
        "tool": "declared; runs in nanobot's Node sidecar, projected as a native tool",
        "command": "declared; registered in nanobot's command router",
        "hook": "declared; nanobot delivers the event to observe only (it cannot change it)",
        "skill": "declared; nanobot keeps it as catalog metadata, it installs no skill",
    }

    def add(kind: str, name: str, description: str) -> None:
        if not _NANOBOT_NAME.fullmatch(name):
            migration.note(
                MIGRATE_NOT_CARRIED,
                f"{kind} {name!r}: nanobot names are lowercase (a-z, 0-9, '.', '_', '-'); "
                "nanobot would refuse the manifest, so it is not declared (and its runtime's "
                "registration of it is refused)",
                name,
            )
            return
        item: dict[str, object] = {"kind": kind, "name": name}
        if description:
            item["description"] = description
        contributions.append(item)
        migration.carry(kind, name, how[kind])

    for tool in observation.tools:
        add("tool", tool["name"], tool.get("description", ""))
    for command in observation.commands:
        add("command", command["name"], command.get("description", ""))
    for event in dict.fromkeys([*observation.events, *observation.named_hooks]):
        add("hook", event, f"{event} handler")
    for contribution in entry.contributions:
        if contribution.kind == "skill":
            add("skill", contribution.name, contribution.description)
        elif contribution.kind in NOT_PORTABLE or contribution.kind == "prompt":
            reason = NOT_PORTABLE.get(
                contribution.kind, "nanobot has no prompt templates (its commands are code)"
            )
            migration.note(
                MIGRATE_NOT_CARRIED, f"{contribution.kind} {contribution.name!r}: {reason}",
                contribution.name,
            )  # fmt: skip
    if not observation.complete:
        migration.note(
            MIGRATE_CONTRIBUTIONS_UNKNOWN,
            "nanobot refuses what a manifest does not declare, and the package's tools, "
            "commands and hooks exist only when it runs: nothing ran, so none are declared "
            "(run with --load)",
        )
    manifest: dict[str, object] = {
        "id": package_id,
        "name": entry.name or package_id,
        "version": entry.version or "0.0.0",
        "apiVersion": 1,
        "runtime": _NANOBOT_RUNTIME[entry.ecosystem],
        "entries": list(entry.entries),
    }
    if entry.description:
        manifest["description"] = entry.description
    license_ = entry.metadata.get("license")
    if isinstance(license_, str) and license_:
        manifest["license"] = license_
    manifest["contributions"] = contributions
    write_json(migration, "nanobot.extension.json", manifest)
    migration.files.pop()  # appended once by the caller, after validation
