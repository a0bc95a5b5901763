"""A Claude Code plugin's options (plugin.json ``userConfig``), by Claude Code's own manifest
schema: ``{KEY: {type, title, description, required?, default?, multiple?, sensitive?, min?,
max?}}``, each key an identifier, ``type`` one of ``string``, ``number``, ``boolean``,
``directory``, ``file``, no other field (Claude Code's option schema is strict).

Claude Code asks for the values when the plugin is enabled; the gateway takes them from the
verbs it has for every package: a non-sensitive option is a setting (``gateway config ID KEY
VALUE``, typed and checked by a schema made from the options), a ``sensitive`` one a secret
(``gateway secret set ID KEY``, kept 0600, never shown). When the plugin host starts
(``_launch``), each value fills ``${user_config.KEY}`` in the stdio MCP servers' ``command``,
``args``, ``env`` and ``cwd``, and every option is in the environment of the plugin's
processes (servers, hooks, ``!`` lines) as ``CLAUDE_PLUGIN_OPTION_<KEY>`` (upper case), as
Claude Code exports them. A hook command's ``${user_config.KEY}`` becomes
``${CLAUDE_PLUGIN_OPTION_KEY}``, so the shell reads the value from the environment instead of
running it as part of the command; a remote server's header reads it from the host's
environment the same way (as it reads a secret). A required option with no value and no
default refuses the launch (``claude.user_config_missing``, naming the verb that sets it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from adapters._files import Inspection, type_name
from adapters.claude_plugins import _codes as codes
from gateway.base import Diagnostic, counted
from gateway.packages import PackageConfigError, package_settings, read_package_config
from gateway.packages.secrets import SecretsError, read_secrets

__all__ = [
    "ENV_PREFIX",
    "REFERENCE",
    "config_schema",
    "env_references",
    "option_values",
    "read_user_config",
]

ENV_PREFIX: Final = "CLAUDE_PLUGIN_OPTION_"
REFERENCE: Final = re.compile(r"\$\{user_config\.([A-Za-z_]\w*)\}")
_KEY: Final = re.compile(r"^[A-Za-z_]\w*$")
_TYPES: Final = ("string", "number", "boolean", "directory", "file")
_FIELDS: Final = frozenset(
    ("type", "title", "description", "required", "default", "multiple", "sensitive", "min", "max")
)
_WHERE: Final = ".claude-plugin/plugin.json userConfig"


def read_user_config(inspection: Inspection, raw: object) -> dict[str, dict[str, Any]]:
    """The valid options, by key (an invalid one is named and left out)."""
    if raw is None:
        return {}
    invalid = codes.USER_CONFIG_INVALID
    if not isinstance(raw, dict):
        inspection.add(invalid(f"{_WHERE} is {type_name(raw)}, not an object"))
        return {}
    found: dict[str, dict[str, Any]] = {}
    for key, option in raw.items():
        problem = _problem(key, option)
        if problem is not None:
            inspection.add(invalid(f"{_WHERE}.{key}: {problem}; the option is ignored"))
            continue
        found[key] = {
            "type": option["type"],
            "title": option["title"],
            "sensitive": option.get("sensitive", False),
            "required": option.get("required", False),
            "default": option.get("default"),
            "multiple": option.get("multiple", False),
            **{bound: option[bound] for bound in ("min", "max") if bound in option},
        }
    return found


def _problem(key: str, option: object) -> str | None:
    if not _KEY.match(key):
        return "the key is not an identifier (letters, digits, _; no leading digit)"
    if not isinstance(option, dict):
        return f"{type_name(option)}, not an object"
    unknown = sorted(set(option) - _FIELDS)
    if unknown:
        return f"{counted(len(unknown), 'unknown field')}: {', '.join(map(repr, unknown))}"
    if option.get("type") not in _TYPES:
        return f"`type` must be one of {', '.join(_TYPES)}"
    for name in ("title", "description"):
        if not isinstance(option.get(name), str):
            return f"`{name}` (text) is required"
    for name in ("required", "multiple", "sensitive"):
        if not isinstance(option.get(name, False), bool):
            return f"`{name}` is not true or false"
    for name in ("min", "max"):
        value = option.get(name, 0)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"`{name}` is not a number"
    default = option.get("default")
    if default is not None and not _typed(option, default):
        return f"`default` is not a {option['type']}"
    return None


def _typed(option: dict[str, Any], value: object) -> bool:
    kind = option["type"]
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if option.get("multiple") and isinstance(value, list):
        return all(isinstance(item, str) for item in value)
    return isinstance(value, str)


def config_schema(options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The JSON Schema ``gateway config`` types and checks the non-sensitive options by."""
    properties: dict[str, Any] = {}
    for key, option in options.items():
        if option["sensitive"]:
            continue
        kind = option["type"]
        if kind == "number":
            schema: dict[str, Any] = {"type": "number"}
            schema |= {"minimum": option["min"]} if "min" in option else {}
            schema |= {"maximum": option["max"]} if "max" in option else {}
        elif kind == "boolean":
            schema = {"type": "boolean"}
        elif option["multiple"]:
            schema = {"type": ["string", "array"], "items": {"type": "string"}}
        else:
            schema = {"type": "string"}
        properties[key] = schema
    return {"type": "object", "properties": properties}


def option_values(
    entry_id: str, options: dict[str, dict[str, Any]], home: Path
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Each option's value as text (stored, else its default), and a diagnostic for each
    required one that has neither, or for settings or secrets that cannot be read."""
    problems: list[Diagnostic] = []
    try:
        settings, _ = package_settings(read_package_config(home, entry_id))
    except PackageConfigError as error:
        settings = {}
        problems.append(codes.USER_CONFIG_MISSING(f"its settings cannot be read: {error}"))
    try:
        secrets = read_secrets(home, entry_id)
    except SecretsError as error:
        secrets = {}
        problems.append(codes.USER_CONFIG_MISSING(f"its secrets cannot be read: {error}"))
    values: dict[str, str] = {}
    for key, option in options.items():
        stored = secrets.get(key) if option["sensitive"] else settings.get(key)
        value = stored if stored not in (None, "") else option["default"]
        if value is None or value == "":
            if option["required"]:
                verb = (
                    f"gateway secret set {entry_id} {key}"
                    if option["sensitive"]
                    else f"gateway config {entry_id} {key} VALUE"
                )
                problems.append(
                    codes.USER_CONFIG_MISSING(
                        f"required option {key!r} ({option['title']}) has no value",
                        package=entry_id,
                        contribution=key,
                        hint=verb,
                    )
                )
            continue
        values[key] = _text(value)
    return values, problems


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join(str(item) for item in value)
    return str(value)


def env_references(hooks: Any) -> Any:
    """``hooks`` (or remote headers) with each ``${user_config.KEY}`` made
    ``${CLAUDE_PLUGIN_OPTION_KEY}``: the shell (or the host filling a header) reads the
    value from the environment; a hook never runs it as part of its command."""
    if isinstance(hooks, dict):
        return {key: env_references(value) for key, value in hooks.items()}
    if isinstance(hooks, list):
        return [env_references(item) for item in hooks]
    if isinstance(hooks, str):
        return REFERENCE.sub(lambda m: "${" + ENV_PREFIX + m.group(1).upper() + "}", hooks)
    return hooks
