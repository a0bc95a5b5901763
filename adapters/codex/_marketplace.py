"""Codex marketplaces (``.agents/plugins/marketplace.json``): the plugin
``gateway install MARKETPLACE#PLUGIN`` names, read as Codex reads it (openai/codex
``codex-rs/core-plugins/src/marketplace.rs``; the format is documented in Codex's "Build
plugins": a top-level ``name``, ``interface.displayName``, and ``plugins[]`` entries of
``name``, ``source``, ``policy``, ``category``).

A ``source`` is a ``./`` path relative to the marketplace's root (the folder holding
``.agents/``), as a string or ``{"source": "local", "path"}``, made only of plain names;
or a git repository, ``{"source": "url" | "git-subdir", "url", "path"?, "ref"?, "sha"?}``,
fetched by the installer's own git fetcher when it is an https or ssh URL (or GitHub's
``OWNER/REPO``) of a whole repository. A plugin whose ``policy.installation`` is
``NOT_AVAILABLE`` is refused, as Codex refuses it. Reads files only; runs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection, safe_is_dir, safe_is_file
from adapters._marketplaces import GITHUB_REPO, choose, git_location
from adapters.codex import _codes as codes
from gateway.base import Diagnostic
from gateway.model import OfferedSource

__all__ = ["MARKETPLACE", "select_plugin"]

MARKETPLACE: Final = ".agents/plugins/marketplace.json"


def select_plugin(root: Path, name: str | None) -> Path | OfferedSource | list[Diagnostic] | None:
    """The folder inside ``root`` of the plugin ``name``, or where to fetch it; None when
    ``root`` is no Codex marketplace; coded diagnostics when it cannot be had."""
    if not safe_is_file(root / MARKETPLACE):
        return None
    inspection = Inspection(root)
    data = inspection.read_json_object(MARKETPLACE)
    if data is None:
        return inspection.diagnostics
    plugins = data.get("plugins")
    if not isinstance(data.get("name"), str) or not isinstance(plugins, list):
        return [codes.CODEX_MARKETPLACE_INVALID(
            f"{MARKETPLACE}: needs a string `name` and a `plugins` list, as Codex reads it"
        )]  # fmt: skip
    # Codex skips an entry it cannot read and lists the others.
    entries = [
        (item["name"], item)
        for item in plugins
        if isinstance(item, dict) and isinstance(item.get("name"), str) and "source" in item
    ]
    chosen = choose(
        entries, name,
        required=lambda offered: codes.CODEX_MARKETPLACE(
            f"a Codex marketplace offering {offered}; install one as MARKETPLACE#PLUGIN",
            hint="gateway install DIR#PLUGIN",
        ),
        unknown=lambda offered: codes.CODEX_MARKETPLACE_PLUGIN_UNKNOWN(
            f"the marketplace offers no plugin {name!r}; it offers {offered}"
        ),
    )  # fmt: skip
    if isinstance(chosen, list):
        return chosen
    policy = chosen.get("policy")
    if isinstance(policy, dict) and policy.get("installation") == "NOT_AVAILABLE":
        return [codes.CODEX_MARKETPLACE_PLUGIN_UNAVAILABLE(
            f"plugin {name!r}: its policy.installation is NOT_AVAILABLE"
        )]  # fmt: skip
    return _source(inspection, str(name), chosen["source"])


def _source(
    inspection: Inspection, name: str, source: Any
) -> Path | OfferedSource | list[Diagnostic]:
    if isinstance(source, str):
        return _local(inspection, name, source)
    kind = source.get("source") if isinstance(source, dict) else None
    if kind == "local":
        return _local(inspection, name, source.get("path"))
    if kind not in ("url", "git-subdir"):
        return [codes.CODEX_MARKETPLACE_SOURCE_UNSUPPORTED(
            f"plugin {name!r}: source {str(kind)[:100]!r} is not one Codex reads"
        )]  # fmt: skip
    assert isinstance(source, dict)
    if source.get("path") not in (None, "", ".", "./"):
        return [codes.CODEX_MARKETPLACE_SOURCE_UNSUPPORTED(
            f"plugin {name!r}: a folder inside a git repository ({kind} `path`) is not "
            "installed from a marketplace; the gateway installs a whole repository"
        )]  # fmt: skip
    url = source.get("url")
    if isinstance(url, str) and GITHUB_REPO.match(url):
        url = f"https://github.com/{url}.git"  # Codex's GitHub shorthand
    try:
        location = git_location(url, source.get("sha") or source.get("ref"))
    except ValueError as error:
        return [codes.CODEX_MARKETPLACE_INVALID(f"plugin {name!r}: {error}")]
    return OfferedSource("git", location)


def _local(inspection: Inspection, name: str, raw: object) -> Path | list[Diagnostic]:
    """Codex's ``resolve_local_plugin_source_path``: ``./`` then plain names only."""
    rest = raw[2:] if isinstance(raw, str) and raw.startswith("./") else None
    parts = rest.split("/") if rest else []
    if not parts or any(part in ("", ".", "..") or "\x00" in part for part in parts):
        return [codes.CODEX_MARKETPLACE_INVALID(
            f"plugin {name!r}: source path {raw!r} must start with `./` and stay within the "
            "marketplace root"
        )]  # fmt: skip
    path = inspection.root.joinpath(*parts)
    if not inspection.inside(path) or not safe_is_dir(path):
        return [codes.CODEX_MARKETPLACE_INVALID(
            f"plugin {name!r}: source path {raw!r} is no folder inside the marketplace"
        )]  # fmt: skip
    return path
