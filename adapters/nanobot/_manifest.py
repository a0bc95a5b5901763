"""The strict ``nanobot.extension.json`` manifest (nanobot extension-authoring document).

Unknown fields are rejected at every level (manifest, contribution, dependency,
permission): "a misspelled permission, dependency, or contribution must not silently
change package behavior". Types are strict too: ``"false"`` is not a bool and ``1.0`` is
not apiVersion 1. :func:`load_manifest` never raises; pydantic's errors become
diagnostics that name the field and where it is (``contributions[2].nmae: unknown
field``). :func:`dump_manifest` writes the canonical form, and loading it back gives an
equal manifest.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from adapters._files import normalize_relative
from adapters.nanobot import _codes as codes
from adapters.nanobot._errors import validation_diagnostics
from gateway.base import Diagnostic
from gateway.model import NANOBOT_CONTRIBUTION_KINDS

__all__ = [
    "CONTRIBUTION_KINDS",
    "DEPENDENCY_KINDS",
    "MANIFEST_FILE",
    "RUNTIMES",
    "ManifestContribution",
    "ManifestDependency",
    "ManifestPermission",
    "NanobotManifest",
    "dump_manifest",
    "load_manifest",
]

MANIFEST_FILE: Final = "nanobot.extension.json"
RUNTIMES: Final = ("python", "pi", "openclaw", "declarative")
CONTRIBUTION_KINDS: Final = NANOBOT_CONTRIBUTION_KINDS
DEPENDENCY_KINDS: Final = ("python", "npm", "executable", "environment", "extension")

# Upstream's patterns (nanobot a521cf31d): ids and contribution names are lowercase.
_ID = re.compile(r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?")
_PERMISSION = re.compile(r"[a-z][a-z0-9]*(?:[._:-][a-z0-9]+)*")
_PYTHON_ENTRY = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?::[A-Za-z_]\w*)?")
_DISTRIBUTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_ENV_VAR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _fail(message: str) -> PydanticCustomError:
    return PydanticCustomError("invalid", message)


def _identifier(value: str) -> str:
    if not _ID.fullmatch(value):
        raise _fail(f"{value!r} is not a lowercase id (letters, digits, '.', '_', '-')")
    return value


def _permission_name(value: str) -> str:
    # The document asks for "lowercase namespaced identifiers such as workspace.read":
    # upstream's pattern plus at least one namespace separator.
    if not _PERMISSION.fullmatch(value) or not any(sep in value for sep in ".:"):
        raise _fail(f"{value!r} is not a lowercase namespaced permission like workspace.read")
    return value


def _non_empty(value: str) -> str:
    if not value.strip():
        raise _fail("must not be empty")
    return value


def _relative_entry(value: str) -> str:
    segments = value.replace("\\", "/").split("/")
    if normalize_relative(value) is None or ".." in segments:
        raise _fail(f"{value!r} must be relative to the package root without '..'")
    return value


Identifier = Annotated[str, AfterValidator(_identifier)]
NonEmpty = Annotated[str, AfterValidator(_non_empty)]
Entry = Annotated[str, AfterValidator(_relative_entry)]


def _no_duplicates(items: Iterable[Hashable], field: str, what: str) -> None:
    seen: dict[Hashable, int] = {}
    for index, key in enumerate(items):
        if key in seen:
            raise PydanticCustomError(
                "duplicate",
                "{field}[{index}] repeats {what} {key} of {field}[{first}]",
                {"field": field, "index": index, "what": what, "key": str(key), "first": seen[key]},
            )
        seen[key] = index


class _Strict(BaseModel):
    # No populate_by_name: `api_version` in a file is an unknown field, not an alias.
    # defer_build: built when a manifest is first read, not when the adapters load (a
    # `gateway call` loads them to discover, and may read no nanobot manifest at all).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class ManifestContribution(_Strict):
    kind: Literal[CONTRIBUTION_KINDS]  # type: ignore[valid-type]
    name: Identifier
    target: str = ""
    description: str = ""
    replaces: list[Identifier] = Field(default_factory=list)  # extension ids, not names

    @field_validator("replaces")
    @classmethod
    def _unique_replaces(cls, value: list[str]) -> list[str]:
        _no_duplicates(value, "replaces", "extension id")
        return value


class ManifestDependency(_Strict):
    kind: Literal[DEPENDENCY_KINDS]  # type: ignore[valid-type]
    name: NonEmpty
    specifier: str = ""
    optional: bool = False

    @model_validator(mode="after")
    def _check_name_and_specifier(self) -> ManifestDependency:
        patterns = {"extension": _ID, "python": _DISTRIBUTION, "environment": _ENV_VAR}
        pattern = patterns.get(self.kind)
        if pattern is not None and not pattern.fullmatch(self.name):
            raise _fail(f"{self.name!r} is not a valid {self.kind} dependency name")
        if self.kind in ("python", "extension") and self.specifier:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                SpecifierSet(self.specifier)
            except InvalidSpecifier:
                raise _fail(f"{self.specifier!r} is not a PEP 440 version specifier") from None
        return self


class ManifestPermission(_Strict):
    name: Annotated[str, AfterValidator(_permission_name)]
    reason: str = ""


class NanobotManifest(_Strict):
    id: Identifier
    name: NonEmpty
    version: NonEmpty
    api_version: int = Field(1, alias="apiVersion")
    runtime: Literal[RUNTIMES]  # type: ignore[valid-type]
    entry: Entry | None = None
    entries: list[Entry] | None = None
    contributions: list[ManifestContribution] = Field(default_factory=list)
    dependencies: list[ManifestDependency] = Field(default_factory=list)
    permissions: list[ManifestPermission] = Field(default_factory=list)
    description: str = ""
    homepage: str | None = None
    license: str | None = None

    @field_validator("api_version")
    @classmethod
    def _api_version(cls, value: int) -> int:
        if value != 1:
            raise _fail(f"unsupported manifest API {value}; only 1 exists")
        return value

    @field_validator("entries")
    @classmethod
    def _entries(cls, value: list[str] | None) -> list[str] | None:
        if value is not None:
            if not value:
                raise _fail("must not be empty when present")
            _no_duplicates(value, "entries", "entry")
        return value

    @field_validator("contributions")
    @classmethod
    def _contributions(cls, value: list[ManifestContribution]) -> list[ManifestContribution]:
        _no_duplicates(((c.kind, c.name) for c in value), "contributions", "(kind, name)")
        return value

    @field_validator("dependencies")
    @classmethod
    def _dependencies(cls, value: list[ManifestDependency]) -> list[ManifestDependency]:
        _no_duplicates(((d.kind, d.name) for d in value), "dependencies", "(kind, name)")
        return value

    @field_validator("permissions")
    @classmethod
    def _permissions(cls, value: list[ManifestPermission]) -> list[ManifestPermission]:
        _no_duplicates((p.name for p in value), "permissions", "permission")
        return value

    @model_validator(mode="after")
    def _runtime_entries(self) -> NanobotManifest:
        entries = self.activation_entries
        if self.runtime == "python":
            if len(entries) != 1:
                raise _fail("runtime python needs exactly one entry (module[:attribute])")
            if not _PYTHON_ENTRY.fullmatch(entries[0]):
                raise _fail(f"python entry {entries[0]!r} is not module[:attribute]")
        elif self.runtime in ("pi", "openclaw") and not entries:
            raise _fail(f"runtime {self.runtime} needs entry or entries")
        elif self.runtime == "declarative" and entries:
            raise _fail("runtime declarative runs no code; remove entry/entries")
        return self

    @property
    def activation_entries(self) -> tuple[str, ...]:
        """entries win over entry."""
        if self.entries is not None:
            return tuple(self.entries)
        return (self.entry,) if self.entry is not None else ()


def load_manifest(data: object) -> tuple[NanobotManifest | None, list[Diagnostic]]:
    """Validate parsed JSON. Returns the manifest (None if invalid) and diagnostics."""
    try:
        manifest = NanobotManifest.model_validate(data)
    except ValidationError as error:
        return None, validation_diagnostics(error, MANIFEST_FILE)
    except RecursionError:
        return None, [codes.NANOBOT_MANIFEST_INVALID(f"{MANIFEST_FILE}: nested too deeply")]
    return manifest, _advice(manifest)


def dump_manifest(manifest: NanobotManifest) -> dict[str, Any]:
    """The canonical JSON object: defaults omitted, apiVersion always written."""
    data = manifest.model_dump(by_alias=True, exclude_defaults=True, mode="json")
    ordered: dict[str, Any] = {}
    for key in ("id", "name", "version"):
        ordered[key] = data.pop(key)
    ordered["apiVersion"] = manifest.api_version
    data.pop("apiVersion", None)
    ordered.update(data)
    return ordered


def _advice(manifest: NanobotManifest) -> list[Diagnostic]:
    """Warnings and notes on a valid manifest."""
    notes: list[Diagnostic] = []
    if manifest.entry is not None and manifest.entries is not None:
        notes.append(
            codes.NANOBOT_ENTRY_OVERRIDDEN(
                f"{MANIFEST_FILE}: both entry and entries are set; entries win "
                f"(entry {manifest.entry!r} is not used)"
            )
        )
    for index, permission in enumerate(manifest.permissions):
        if not permission.reason.strip():
            notes.append(
                codes.NANOBOT_REASON_MISSING(
                    f"{MANIFEST_FILE}: permissions[{index}] {permission.name!r} has no reason"
                )
            )
    for index, dependency in enumerate(manifest.dependencies):
        if dependency.kind in ("executable", "environment") and dependency.specifier:
            notes.append(
                codes.NANOBOT_SPECIFIER_IGNORED(
                    f"{MANIFEST_FILE}: dependencies[{index}] {dependency.kind} "
                    f"{dependency.name!r}: specifier {dependency.specifier!r} is never checked"
                )
            )
    return notes
