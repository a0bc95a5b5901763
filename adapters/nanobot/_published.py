"""Published nanobot plugins: Python distributions that register with nanobot through entry
points rather than a ``nanobot.extension.json``. The one group nanobot reads is
``nanobot.channels`` (``name = module:ChannelClass``, a ``BaseChannel`` its ``ChannelManager``
starts); a channel connects a chat platform, which a headless host does not run.

Read from where a distribution declares them: ``pyproject.toml``
(``[project.entry-points."nanobot.channels"]``), ``setup.cfg``
(``[options.entry_points]``) or an unpacked wheel's ``*.dist-info/entry_points.txt``.
"""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection, safe_is_file
from adapters.nanobot import _codes as codes
from gateway.model import CatalogEntry, Contribution

__all__ = ["CHANNELS_GROUP", "inspect_channel_plugin", "is_channel_plugin"]

CHANNELS_GROUP: Final = "nanobot.channels"
_PYPROJECT: Final = "pyproject.toml"
_SETUP_CFG: Final = "setup.cfg"
_PROBE_BYTES: Final = 256 * 1024


def is_channel_plugin(root: Path) -> bool:
    """Cheap: does a packaging file of ``root`` name the ``nanobot.channels`` group?"""
    return any(CHANNELS_GROUP in _probe(root / rel) for rel in _candidates(root))


def inspect_channel_plugin(root: Path, entry: CatalogEntry) -> None:
    """Fill ``entry`` (named after its folder) from the distribution's metadata: its
    project name and version, one ``channel`` per entry point, and why nothing runs."""
    inspection = Inspection(root)
    points: dict[str, str] = {}
    where = ""
    for rel in _candidates(root):
        found = _entry_points(inspection, rel, entry)
        if found:
            points, where = found, rel
            break
    entry.runtime = "declarative"
    entry.contributions = [
        Contribution("channel", name, detail={"entry_point": target})
        for name, target in points.items()
    ]
    entry.metadata = {"entry_points": {CHANNELS_GROUP: points}}
    shown = ", ".join(f"{name} = {target}" for name, target in points.items()) or "(empty)"
    inspection.add(
        codes.NANOBOT_CHANNEL_PLUGIN(
            f"{where or _PYPROJECT}: a nanobot channel plugin (entry point {CHANNELS_GROUP}: "
            f"{shown}); channels are unsupported in a headless host, so nothing of it runs"
        )
    )
    entry.diagnostics = inspection.finish(entry.id)


def _candidates(root: Path) -> list[str]:
    found = [rel for rel in (_PYPROJECT, _SETUP_CFG) if safe_is_file(root / rel)]
    try:
        infos = sorted(p.name for p in root.glob("*.dist-info") if p.is_dir())
    except OSError:
        infos = []
    found += [
        f"{name}/entry_points.txt"
        for name in infos
        if safe_is_file(root / name / "entry_points.txt")
    ]
    return found


def _probe(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(_PROBE_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


def _entry_points(inspection: Inspection, rel: str, entry: CatalogEntry) -> dict[str, str]:
    text = inspection.read_text(rel, required=False)
    if text is None or CHANNELS_GROUP not in text:
        return {}
    if rel == _PYPROJECT:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {}
        project = data.get("project")
        if not isinstance(project, dict):
            return {}
        _identity(entry, project.get("name"), project.get("version"))
        groups = project.get("entry-points")
        group = groups.get(CHANNELS_GROUP) if isinstance(groups, dict) else None
        return _strings(group)
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    if rel == _SETUP_CFG:
        if parser.has_section("metadata"):
            meta = parser["metadata"]
            _identity(entry, meta.get("name"), meta.get("version"))
        section = "options.entry_points"
        raw = parser.get(section, CHANNELS_GROUP, fallback="")
        pairs = (line.partition("=") for line in raw.splitlines() if "=" in line)
        return {name.strip(): target.strip() for name, _, target in pairs}
    dist = rel.split("/", 1)[0].removesuffix(".dist-info")
    name, _, version = dist.partition("-")
    _identity(entry, name, version)
    return dict(parser[CHANNELS_GROUP]) if parser.has_section(CHANNELS_GROUP) else {}


def _identity(entry: CatalogEntry, name: Any, version: Any) -> None:
    if isinstance(name, str) and name.strip():
        entry.id = entry.name = name.strip()
    if isinstance(version, str) and version.strip():
        entry.version = version.strip()


def _strings(group: Any) -> dict[str, str]:
    if not isinstance(group, dict):
        return {}
    return {str(k): str(v) for k, v in group.items() if isinstance(v, str)}
