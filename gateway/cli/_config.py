"""``gateway config ID [KEY [VALUE]]``: a package's configuration, the same verb for every
ecosystem (stored as ``GATEWAY_HOME/config/<id>.json``; docs/cli.md).

A value is JSON when it parses (``5``, ``true``, ``["a"]``), else text; a field the
package's config schema types as a string keeps the text. When the package declares a
config schema (OpenClaw's ``configSchema``), the result is checked against it before it is
stored. Keys the package marks sensitive are shown masked.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._output import print_json
from gateway.model import CatalogEntry
from gateway.packages import (
    GATEWAY_SETTINGS,
    PackageConfigError,
    load_adapters,
    package_settings,
    parse_config_value,
    read_package_config,
    set_config_value,
    unset_config_value,
    write_package_config,
)
from gateway.sandbox import limits_from_settings
from gateway.store import STATE_FILE, StateStore, UnknownPackage

__all__ = ["installed_entry", "run_config"]


def installed_entry(config: GatewayConfig, package_id: str) -> CatalogEntry | None:
    """The installed package's catalog entry; None when it is not installed."""
    if not (config.home / STATE_FILE).exists():
        return None
    try:
        with StateStore.open(config.home) as store:
            root = store.get_package(package_id).record.path
    except UnknownPackage:
        return None
    return load_adapters().inspect(root)


def _unlisted(entry: CatalogEntry | None, key: str) -> str | None:
    """Why ``key`` cannot be set when the package lists its settings (Nu's ``config``)."""
    if entry is None or not entry.config_closed:
        return None
    top = key.split(".", 1)[0]
    if top in entry.config_keys or top == GATEWAY_SETTINGS:
        return None
    listed = ", ".join(entry.config_keys) or "none"
    return f"{entry.id} has no setting {top!r} (its settings: {listed})"


def _limit_problem(key: str, value: Any) -> str | None:
    """Why a value of ``$gateway.limits`` (a package's resource limits) cannot be used."""
    prefix = f"{GATEWAY_SETTINGS}.limits"
    if key == prefix:
        settings = value
    elif key.startswith(f"{prefix}."):
        settings = {key.removeprefix(f"{prefix}."): value}
    else:
        return None
    _, problems = limits_from_settings(settings, "")
    return problems[0] if problems else None


def _expected_type(schema: Any, key: str) -> str | None:
    for part in key.split("."):
        properties = schema.get("properties") if isinstance(schema, dict) else None
        schema = properties.get(part) if isinstance(properties, dict) else None
    kind = schema.get("type") if isinstance(schema, dict) else None
    return kind if isinstance(kind, str) else None


def _problem(schema: Any, data: dict[str, Any]) -> str | None:
    if not isinstance(schema, dict):
        return None
    own, _ = package_settings(data)
    import jsonschema  # only for a package with a config schema

    try:
        validator = jsonschema.validators.validator_for(schema)(schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(own))
    except jsonschema.exceptions.SchemaError:
        return None  # the package's schema is broken; its runtime reports that
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path) or "(root)"
    return f"{where}: {error.message}"


def _masked(data: Any, sensitive: set[str], prefix: str = "") -> Any:
    if not isinstance(data, dict):
        return data
    shown = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        shown[key] = "***" if path in sensitive and value else _masked(value, sensitive, f"{path}.")
    return shown


def run_config(args: argparse.Namespace, config: GatewayConfig) -> int:
    entry = installed_entry(config, args.id)
    if entry is None and ":" not in args.id:
        return _refuse(args, f"no installed package {args.id!r} (see `gateway status`)")
    metadata = entry.metadata if entry is not None else {}
    schema = metadata.get("config_schema")
    try:
        data = read_package_config(config.home, args.id)
        if args.key is not None and (args.unset or args.value is not None):
            unlisted = _unlisted(entry, args.key)
            if unlisted and not args.unset:
                return _refuse(args, unlisted)
            if args.unset:
                data = unset_config_value(data, args.key)
            else:
                value = parse_config_value(args.value, _expected_type(schema, args.key))
                limit = _limit_problem(args.key, value)
                if limit:
                    return _refuse(args, f"{args.id}: not stored, {limit}")
                data = set_config_value(data, args.key, value)
            problem = _problem(schema, data)
            if problem:
                return _refuse(args, f"{args.id}: not stored, its config schema says {problem}")
            write_package_config(config.home, args.id, data)
    except PackageConfigError as error:
        return _refuse(args, str(error))
    sensitive = set(metadata.get("sensitive_config") or [])
    shown = _masked(data, sensitive)
    if args.key is not None and not args.unset and args.value is None:
        shown = _lookup(shown, args.key)
    if args.json:
        print_json({"id": args.id, "config": shown})
    elif args.key is not None and args.value is None and not args.unset:
        print(_text(shown))
    else:
        for line in _lines(shown):
            print(line)
        if not shown:
            print(f"{args.id} has no configuration")
    return 0


def _lookup(data: Any, key: str) -> Any:
    for part in key.split("."):
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _lines(data: dict[str, Any], prefix: str = "") -> list[str]:
    lines: list[str] = []
    for key, value in data.items():
        if isinstance(value, dict) and value:
            lines += _lines(value, f"{prefix}{key}.")
        else:
            lines.append(f"  {prefix}{key} = {_text(value)}")
    return lines


def _refuse(args: argparse.Namespace, message: str) -> int:
    if args.json:
        print_json({"error": message})
    else:
        print(f"gateway: error: {message}", file=sys.stderr)
    return 1
