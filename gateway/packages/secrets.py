"""A package's secrets: values the user sets with ``gateway secret set ID NAME`` (read from
stdin or a prompt, never from the command line), for the names the package declares
(Nu's ``secrets``).

They are kept outside the package, in ``GATEWAY_HOME/secrets/`` (a folder only the owner
may enter), one JSON object per package in a file only the owner may read, replaced
atomically. Nothing here prints, logs or returns a value except ``read_secrets``, whose
caller hands them to the package's processes; ``secret_status`` says only set or unset.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path

from gateway.base import MAX_NAME_BYTES, GatewayError, private_dir, safe_join, write_json_atomically

__all__ = [
    "SECRET_NAME",
    "SecretsError",
    "read_secrets",
    "secret_status",
    "secrets_dir",
    "secrets_path",
    "set_secret",
    "unset_secret",
]

SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""A secret is handed to a process as an environment variable: its name must be one."""


class SecretsError(GatewayError):
    """A secrets file that cannot be read or written, or a bad name or value."""


_SLUG_BYTES = MAX_NAME_BYTES - len("-123456789012.json")
"""The slug is cut only where the file could not have been made before."""


def secrets_dir(home: Path) -> Path:
    return home / "secrets"


def secrets_path(home: Path, package_id: str) -> Path:
    """``GATEWAY_HOME/secrets/<slug>-<digest>.json``: any package id maps to one file."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", package_id).strip("._")[:_SLUG_BYTES] or "package"
    digest = hashlib.sha256(package_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return safe_join(secrets_dir(home), f"{slug}-{digest}.json", portable=False)


def read_secrets(home: Path, package_id: str) -> dict[str, str]:
    """The stored values (empty when none are stored)."""
    path = secrets_path(home, package_id)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise SecretsError(f"{path}: cannot be read ({type(error).__name__})") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise SecretsError(f"{path}: not JSON") from None
    values = data.get("values") if isinstance(data, dict) else None
    if not isinstance(values, dict):
        raise SecretsError(f"{path}: not a secrets file")
    return {str(k): v for k, v in values.items() if isinstance(v, str)}


def _write(home: Path, package_id: str, values: dict[str, str]) -> None:
    private_dir(secrets_dir(home))  # the file goes straight in it (secrets_path)
    path = secrets_path(home, package_id)
    write_json_atomically(path, {"package": package_id, "values": values}, durable=True)


def set_secret(home: Path, package_id: str, name: str, value: str) -> None:
    if not SECRET_NAME.match(name):
        raise SecretsError(f"{name!r} is not a secret name (letters, digits and _)")
    if not value:
        raise SecretsError(f"the value of {name} is empty; use `gateway secret unset` to remove it")
    if "\0" in value:
        raise SecretsError(f"the value of {name} holds a NUL byte, which no environment takes")
    values = read_secrets(home, package_id)
    values[name] = value
    _write(home, package_id, values)


def unset_secret(home: Path, package_id: str, name: str) -> bool:
    """Remove one value; True when it was set."""
    values = read_secrets(home, package_id)
    if name not in values:
        return False
    del values[name]
    if values:
        _write(home, package_id, values)
    else:
        secrets_path(home, package_id).unlink(missing_ok=True)
    return True


def secret_status(home: Path, package_id: str, names: Iterable[str]) -> dict[str, bool]:
    """Whether each declared secret is set (never its value); an unreadable file counts
    as nothing set."""
    try:
        values = read_secrets(home, package_id)
    except SecretsError:
        values = {}
    return {name: name in values for name in names}
