"""Reading a Nu package: ``package.json`` with a ``nu`` key, its ``tool.yaml`` tools, skills,
extension modules, suggested policy, secrets and settings. Reads files only.

No public Nu implementation exists (nu-notes.md): the project's Nu document is the
specification, and every Nu fixture is synthetic. A folder holding just a ``tool.yaml``
is read as a one-tool package so a single tool can be inspected on its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from adapters import _codes as adapters_codes
from adapters import _glob
from adapters._fields import Fields
from adapters._files import ABSENT, Inspection, fits, jsonable, safe_is_dir, safe_is_file
from adapters._markdown import skill_contribution, skill_files
from adapters._npm import PACKAGE_JSON, has_key, npm_dependencies, read_package
from adapters.nu import _codes as codes
from adapters.nu._tool import check_tool_yaml
from gateway.model import CatalogEntry, Contribution
from gateway.policy import parse_bundle

__all__ = ["ECOSYSTEM", "inspect_nu", "is_nu_package"]

ECOSYSTEM: Final = "nu"
NU_KEYS: Final = (
    "namespace",
    "tools",
    "skills",
    "extensions",
    "policy",
    "secrets",
    "config",
    "client",
)
TOOL_YAML: Final = "tool.yaml"
DISPLAY_KEYS: Final = ("icon", "title", "body")


def is_nu_package(root: Path) -> bool:
    return has_key(root, "nu") or safe_is_file(root / TOOL_YAML)


def inspect_nu(root: Path) -> CatalogEntry:
    inspection = Inspection(root)
    entry = CatalogEntry.named_after(root, ECOSYSTEM)
    if not has_key(root, "nu") and safe_is_file(root / TOOL_YAML):
        _single_tool(inspection, entry)
    else:
        _package(inspection, entry)
    entry.diagnostics = inspection.finish(entry.id)
    return entry


def _single_tool(inspection: Inspection, entry: CatalogEntry) -> None:
    tool = check_tool_yaml(inspection, TOOL_YAML, None)
    entry.runtime = "nu-tool"
    if tool is None:
        return
    entry.id = entry.name = tool.name
    entry.description = tool.description
    entry.contributions.append(tool)
    entry.secrets = list(tool.detail["secrets"])
    entry.entries = [tool.detail["entry"]] if tool.detail["entry"] else []


def _package(inspection: Inspection, entry: CatalogEntry) -> None:
    package = read_package(inspection)
    if package is None:
        return
    entry.id, entry.name = package.id, package.name
    entry.version, entry.description = package.version, package.description
    entry.dependencies = npm_dependencies(inspection, package.raw)
    nu = package.raw.get("nu")
    if not isinstance(nu, dict):
        what = "missing" if "nu" not in package.raw else "not an object"
        inspection.add(codes.NU_MANIFEST_INVALID(f"{PACKAGE_JSON}: nu is {what}"))
        return
    fields = Fields(inspection, codes.NU_MANIFEST_INVALID, f"{PACKAGE_JSON} nu", nu)
    namespace = fields.string("namespace", required=True)
    entry.metadata["namespace"] = namespace
    tools = [
        tool
        for rel in _tool_files(inspection, fields.string_list("tools"))
        if (tool := check_tool_yaml(inspection, rel, namespace)) is not None
    ]
    skills = _skills(inspection, fields.string_list("skills"))
    entry.entries = [
        rel
        for index, raw in enumerate(fields.string_list("extensions"))
        if (rel := inspection.resolve(raw, label=f"{PACKAGE_JSON} nu.extensions[{index}]"))
    ]
    policy = fields.string("policy")
    if policy is not None:
        entry.metadata["policy"] = _policy(inspection, policy)
    entry.secrets = _unique(
        fields.string_list("secrets") + [s for t in tools for s in t.detail["secrets"]]
    )
    entry.config_keys = _unique(fields.string_list("config"))
    entry.config_closed = True  # only the keys it lists are settings
    commands = _client(inspection, fields.mapping("client"), tools)
    fields.unknown(NU_KEYS, codes.NU_MANIFEST_UNKNOWN_FIELD)
    entry.contributions = tools + skills + commands
    if entry.entries:
        entry.runtime = "node-sidecar"
        inspection.add(
            codes.NU_RUNTIME_ONLY(
                f"{PACKAGE_JSON} nu.extensions: hooks, channels, memory stores, browser "
                "providers, sandboxes and watchers are registered at runtime"
            )
        )
    elif tools:
        entry.runtime = "nu-tool"


def _tool_files(inspection: Inspection, patterns: list[str]) -> list[str]:
    files: list[str] = []
    walked: list[str] | None = None
    for index, pattern in enumerate(patterns):
        label = f"{PACKAGE_JSON} nu.tools[{index}]"
        if not _glob.has_magic(pattern):
            rel = inspection.resolve(pattern, label=label)
            matches = [rel] if rel else []
        else:
            if walked is None:
                walked = [rel for rel, is_dir in inspection.walk() if not is_dir]
            matches = [rel for rel in walked if _glob.match(pattern, rel)]
            if not matches:
                inspection.add(
                    adapters_codes.ENTRY_NOT_FOUND(f"{label}: {pattern!r} matches nothing")
                )
        files.extend(rel for rel in matches if rel not in files)
    return files


def _skills(inspection: Inspection, dirs: list[str]) -> list[Contribution]:
    skills: list[Contribution] = []
    for index, raw in enumerate(dirs):
        rel = inspection.resolve(raw, label=f"{PACKAGE_JSON} nu.skills[{index}]")
        if rel is None:
            continue
        paths = skill_files(inspection, rel)
        if not paths:
            inspection.add(
                adapters_codes.ENTRY_NOT_FOUND(
                    f"{PACKAGE_JSON} nu.skills[{index}]: no SKILL.md in {raw!r}"
                )
            )
        skills += [c for p in paths if (c := skill_contribution(inspection, p)) is not None]
    return skills


def _policy(inspection: Inspection, raw: str) -> dict[str, Any]:
    """The suggested policy, checked against rebuno's policy-bundle grammar (the
    gateway's ``parse_bundle``); a valid one is kept for ``gateway policy accept``."""
    rel = inspection.resolve(raw, label=f"{PACKAGE_JSON} nu.policy")
    summary: dict[str, Any] = {"path": rel or raw, "valid": False}
    if rel is None or safe_is_dir(inspection.root / rel):
        return summary
    data = inspection.read_yaml(rel)
    if data is ABSENT:
        return summary
    if not fits(data):
        # Kept whole or not at all: a cut-off copy would not be the rules it suggests.
        inspection.add(
            codes.NU_POLICY_INVALID(
                f"{rel}: larger than a policy needs (more than 10,000 values or 32 "
                "levels once its YAML aliases are expanded); not suggested"
            )
        )
        return summary
    bundle, problems = parse_bundle(data)
    for problem in problems:
        inspection.add(codes.NU_POLICY_INVALID(f"{rel}: {problem}"))
    if bundle is not None:
        summary.update(valid=True, rules=len(bundle.rules), bundle=jsonable(data))
    return summary


def _client(
    inspection: Inspection, client: dict[Any, Any] | None, tools: list[Contribution]
) -> list[Contribution]:
    if client is None:
        return []
    where = f"{PACKAGE_JSON} nu.client"
    fields = Fields(inspection, codes.NU_MANIFEST_INVALID, where, client)
    commands: list[Contribution] = []
    specs = fields.mapping("commands") or {}
    spec_list = Fields(inspection, codes.NU_MANIFEST_INVALID, f"{where}.commands", specs)
    for name, spec in specs.items():
        if not isinstance(spec, dict):
            spec_list.problem(str(name), "must be an object", spec)
            continue
        spec_fields = Fields(
            inspection, codes.NU_MANIFEST_INVALID, f"{where}.commands.{name}", spec
        )
        message = spec_fields.string("message", required=True)
        description = spec_fields.string("description", allow_empty=True)
        if name and message is not None:
            commands.append(
                Contribution(
                    kind="command",
                    name=name,
                    description=description or "",
                    detail={"message": message},
                )
            )
    by_name = {tool.name: tool for tool in tools}
    for name, display in (fields.mapping("tools") or {}).items():
        if name not in by_name:
            inspection.add(codes.NU_CLIENT_TOOL_UNKNOWN(f"{where}.tools: no tool {name!r}"))
            continue
        shown = _display(inspection, f"{where}.tools.{name}", display, by_name[name])
        if shown is not None:
            by_name[name].detail["display"] = shown
    fields.unknown(("commands", "tools"), codes.NU_MANIFEST_UNKNOWN_FIELD)
    return commands


def _display(
    inspection: Inspection, where: str, raw: object, tool: Contribution
) -> dict[str, Any] | None:
    """How the terminal shows a tool's calls: ``icon``, ``title`` with ``{argument}``
    placeholders, ``body`` naming an argument to show as code (``{argument, language}``,
    or the argument's name alone)."""
    if not isinstance(raw, dict):
        Fields(inspection, codes.NU_MANIFEST_INVALID, where, {}).problem(
            "(display)", "must be an object", raw
        )
        return None
    fields = Fields(inspection, codes.NU_MANIFEST_INVALID, where, raw)
    shown: dict[str, Any] = {}
    for key in ("icon", "title"):
        value = fields.string(key, allow_empty=True)
        if value is not None:
            shown[key] = value
    body = raw.get("body")
    if isinstance(body, str) and body:
        body = {"argument": body}
    if isinstance(body, dict) and isinstance(body.get("argument"), str) and body["argument"]:
        language = body.get("language")
        shown["body"] = {"argument": body["argument"]}
        if isinstance(language, str) and language:
            shown["body"]["language"] = language
        properties = (tool.detail.get("args_schema") or {}).get("properties") or {}
        if isinstance(properties, dict) and body["argument"] not in properties:
            fields.problem("body.argument", f"names no argument of {tool.name}", show=False)
    elif body is not None:
        fields.problem("body", "must name an argument: {argument, language}", body)
    fields.unknown(DISPLAY_KEYS, codes.NU_MANIFEST_UNKNOWN_FIELD)
    return shown


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
