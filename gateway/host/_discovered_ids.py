"""The ids of extensions found by discovery rather than installed: ``pi:NAME`` and
``openclaw:ID`` own their names as such, ``nimlet:NAME`` (an ``extension.json``
extension) as its manifest's name. One place says which ids these are, for the grants, the
clash preference, the logs and the telemetry labels."""

from __future__ import annotations

__all__ = ["DISCOVERED_PREFIXES", "NIMLET_PREFIX", "discovered_owner", "extension_identity"]

NIMLET_PREFIX = "nimlet:"
DISCOVERED_PREFIXES = ("pi:", "openclaw:", NIMLET_PREFIX)
"""The ids of discovered extensions (what ``gateway permissions`` grants them by)."""


def discovered_owner(extension_id: str) -> str | None:
    """The registry owner of a discovered extension's id; None for any other id."""
    if extension_id.startswith(NIMLET_PREFIX):
        return extension_id.removeprefix(NIMLET_PREFIX) or None
    if extension_id.startswith(DISCOVERED_PREFIXES) and extension_id.partition(":")[2]:
        return extension_id
    return None


def extension_identity(name: str, package: str | None = None) -> str:
    """What an ``extension.json`` extension is kept under (its grants, its cached
    registration, its last start): the installed ``package`` that holds it, else
    ``nimlet:NAME`` — never its bare name, which an installed package may also bear."""
    return package or f"{NIMLET_PREFIX}{name}"
