"""A package's id is its own to choose (an extension's name, a plugin's id, an npm name with
a scope) and becomes folder and file names under ``GATEWAY_HOME``: its folder, its lock, its
settings and its secrets. Each stays one name under its folder, and the folders of packages
that installed before keep their names."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from gateway.base import name_problem
from gateway.packages import config_path, package_folder, write_package_config
from gateway.packages.secrets import read_secrets, secrets_path, set_secret
from tests.gateway.packages._helpers import install_from, write_tree

HOSTILE_IDS = ["..", "../../x", "@scope/../..", "/abs", "a\\b", "x\ny", "\x00", "con", "a" * 300]
LONG = "n" * 300


@pytest.mark.parametrize("package_id", HOSTILE_IDS, ids=lambda name: repr(name[:12]))
def test_any_id_is_one_folder_and_one_secrets_file_under_their_folders(tmp_path, package_id):
    folder, secrets = package_folder(tmp_path, package_id), secrets_path(tmp_path, package_id)
    assert folder.parent == tmp_path / "packages" and secrets.parent == tmp_path / "secrets"
    for name in (folder.name, f"{folder.name}.lock", secrets.name):
        assert name_problem(name, portable=False) is None


def test_an_ordinary_id_keeps_the_folder_it_had(tmp_path: Path) -> None:
    """The names before this change, for ids that could be installed then."""
    for package_id in ("@acme/tools", "pi-tickets", "openclaw:plugin", "a" * 200):
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", package_id).strip("._")
        digest = hashlib.sha256(package_id.encode()).hexdigest()
        assert package_folder(tmp_path, package_id).name == f"{slug}-{digest[:8]}"
        assert secrets_path(tmp_path, package_id).name == f"{slug}-{digest[:12]}.json"
    assert config_path(tmp_path, "@acme/x") == tmp_path / "config" / "@acme" / "x.json"


def test_a_package_with_a_300_character_id_installs(tmp_path: Path) -> None:
    source = write_tree(
        tmp_path / "src", {"extension.json": json.dumps({"name": LONG, "command": ["./x.sh"]})}
    )
    report = install_from(tmp_path / "home", source)
    assert report.package.id == LONG
    assert report.package.record.path.is_relative_to(tmp_path / "home" / "packages")


def test_a_300_character_id_has_settings_and_secrets_it_can_write(tmp_path: Path) -> None:
    write_package_config(tmp_path, LONG, {"apiKey": "k"})
    set_secret(tmp_path, LONG, "TOKEN", "s")
    assert read_secrets(tmp_path, LONG) == {"TOKEN": "s"}
    path = config_path(tmp_path, LONG)
    assert path.parent == tmp_path / "config" and json.loads(path.read_text()) == {"apiKey": "k"}
