"""The little of ``nanobot.extension.json`` the sidecar needs: identity, entry, contributions.

The host validated the manifest strictly (``adapters/nanobot/_manifest.py``, pydantic)
before planning the launch; re-validating here would import pydantic (≈100 ms) into every
sidecar start. This reader checks only what the sidecar relies on, so a sidecar started by
hand on a broken package still fails with a clear message instead of a KeyError.
"""

from __future__ import annotations

import json
import os
import re

from gateway.base import GatewayError

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MANIFEST_FILE", "Contribution", "ManifestError", "PackageInfo", "read_package"]

MANIFEST_FILE = "nanobot.extension.json"
_ENTRY = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?::[A-Za-z_]\w*)?")


class ManifestError(GatewayError):
    """The package cannot be loaded by this sidecar; ``str()`` says why."""


class Contribution:
    __slots__ = ("description", "kind", "name", "replaces")

    def __init__(self, kind: str, name: str, description: str, replaces: tuple[str, ...]):
        self.kind, self.name, self.description, self.replaces = kind, name, description, replaces


class PackageInfo:
    """One package to host: where it is, who it is, what it may register."""

    __slots__ = ("attribute", "contributions", "id", "module", "root", "version")

    def __init__(
        self,
        root: str,
        package_id: str,
        version: str,
        module: str,
        attribute: str,
        contributions: list[Contribution],
    ) -> None:
        self.root = root
        self.id = package_id
        self.version = version
        self.module = module
        self.attribute = attribute
        self.contributions = contributions

    def declared(self, kind: str) -> dict[str, Contribution]:
        return {c.name: c for c in self.contributions if c.kind == kind}

    def contribution(self, kind: str, name: str) -> Contribution | None:
        return next((c for c in self.contributions if c.kind == kind and c.name == name), None)


def read_package(root: str) -> PackageInfo:
    root = os.path.abspath(root)
    path = os.path.join(root, MANIFEST_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as error:
        raise ManifestError(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: not a JSON object")
    package_id = data.get("id")
    if not isinstance(package_id, str) or not package_id:
        raise ManifestError(f"{path}: no id")
    if data.get("runtime") != "python":
        raise ManifestError(
            f"{package_id}: runtime {data.get('runtime')!r} does not run in the Python sidecar"
        )
    entries = data.get("entries")
    if entries is None:
        entries = [data["entry"]] if isinstance(data.get("entry"), str) else []
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], str):
        raise ManifestError(f"{package_id}: runtime python needs exactly one entry")
    entry = entries[0]
    if not _ENTRY.fullmatch(entry):
        raise ManifestError(f"{package_id}: entry {entry!r} is not module[:attribute]")
    module, _, attribute = entry.partition(":")
    return PackageInfo(
        root,
        package_id,
        str(data.get("version", "")),
        module,
        attribute or "register",
        _contributions(data.get("contributions")),
    )


def _contributions(raw: Any) -> list[Contribution]:
    found: list[Contribution] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        kind, name = item.get("kind"), item.get("name")
        if isinstance(kind, str) and isinstance(name, str):
            replaces = item.get("replaces")
            found.append(
                Contribution(
                    kind,
                    name,
                    str(item.get("description") or ""),
                    tuple(r for r in replaces if isinstance(r, str))
                    if isinstance(replaces, list)
                    else (),
                )
            )
    return found
