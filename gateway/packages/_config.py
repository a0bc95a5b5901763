"""A package's configuration: one JSON object per package id at
``GATEWAY_HOME/config/<id>.json``, the same for every ecosystem (nanobot's ``api.config``,
OpenClaw's ``api.pluginConfig``), set with ``gateway config ID KEY VALUE``.

Keys are dotted paths into nested objects (``oss.llm.provider``). The top-level key
``$gateway`` is reserved for the gateway's own per-package settings (e.g. OpenClaw's
``$gateway.tools.allow``); it is never handed to the package as its config.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from gateway.base import GatewayError, PathRefused, encode_name, safe_join, write_json_atomically

__all__ = [
    "GATEWAY_SETTINGS",
    "PackageConfigError",
    "config_path",
    "package_settings",
    "parse_config_value",
    "read_package_config",
    "set_config_value",
    "unset_config_value",
    "write_package_config",
]

GATEWAY_SETTINGS: Final = "$gateway"
_SAFE_ID = re.compile(r"^(?:@[A-Za-z0-9._~-]+/)?[A-Za-z0-9._~:-]+$")


class PackageConfigError(GatewayError):
    """A config file that cannot be read or written, or a bad key."""


def config_path(home: Path, package_id: str) -> Path:
    """``GATEWAY_HOME/config/<id>.json``; an npm scope is a folder (``config/@acme/x.json``)."""
    if not _SAFE_ID.match(package_id) or package_id.lstrip("@").startswith("."):
        raise PackageConfigError(f"{package_id!r} is not a package id")
    # The pattern keeps each part one name; too long (or a device, on Windows) it is encoded.
    *scope, name = package_id.split("/")
    parts = [encode_name(part, portable=False) for part in scope]
    parts.append(encode_name(name, ".json", portable=False))
    try:
        return safe_join(home / "config", *parts, portable=False)
    except PathRefused as error:
        raise PackageConfigError(f"the settings of {package_id}: {error}") from None


def read_package_config(home: Path, package_id: str) -> dict[str, Any]:
    """The stored object (empty when none is stored)."""
    path = config_path(home, package_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise PackageConfigError(f"{path}: cannot be read ({error})") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise PackageConfigError(f"{path}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise PackageConfigError(f"{path}: not a JSON object")
    return data


def package_settings(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the package's own config, the gateway's ``$gateway`` settings for it)."""
    own = {key: value for key, value in config.items() if key != GATEWAY_SETTINGS}
    settings = config.get(GATEWAY_SETTINGS)
    return own, settings if isinstance(settings, dict) else {}


def write_package_config(home: Path, package_id: str, data: dict[str, Any]) -> Path:
    """Replace the stored object atomically (readable by the owner only: it may hold keys)."""
    path = config_path(home, package_id)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_json_atomically(path, data, indent=2, ensure_ascii=False)
    return path


def _parts(key: str) -> list[str]:
    parts = key.split(".")
    if not key or any(not part for part in parts):
        raise PackageConfigError(f"{key!r} is not a key (dotted names, none empty)")
    return parts


def set_config_value(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``data`` with ``key`` (dotted) set, creating objects on the way."""
    parts = _parts(key)
    result: dict[str, Any] = json.loads(json.dumps(data))
    node = result
    for index, part in enumerate(parts[:-1]):
        child = node.get(part)
        if child is None:
            child = node[part] = {}
        elif not isinstance(child, dict):
            where = ".".join(parts[: index + 1])
            raise PackageConfigError(f"{where} holds a {type(child).__name__}, not an object")
        node = child
    node[parts[-1]] = value
    return result


def unset_config_value(data: dict[str, Any], key: str) -> dict[str, Any]:
    """A copy of ``data`` without ``key``; emptied parent objects are removed too."""
    parts = _parts(key)
    result: dict[str, Any] = json.loads(json.dumps(data))
    trail = [result]
    for part in parts[:-1]:
        child = trail[-1].get(part)
        if not isinstance(child, dict):
            return result
        trail.append(child)
    trail[-1].pop(parts[-1], None)
    for node, part in zip(reversed(trail[:-1]), reversed(parts[:-1]), strict=True):
        if node.get(part) == {}:
            del node[part]
    return result


def parse_config_value(raw: str, expected: str | None = None) -> Any:
    """A command-line value: JSON when it parses (``5``, ``true``, ``["a"]``, ``{...}``),
    else the text itself. A field the schema types as a string keeps the text as typed."""
    if expected == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
