"""The names a person types: a package installed from a folder (or npm) whose own manifest
names it otherwise answers to both names wherever an id is taken; a name nothing answers to
gets "did you mean"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway.cli._main import PACKAGE_NAME_VERBS
from gateway.cli._names import _ARGUMENTS
from tests.adapters._helpers import write_tree
from tests.gateway.packages._helpers import install_from, recorded

TYPED, ID = "claude-dev-environment-setup", "dev-environment-setup"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A Claude Code plugin installed from a folder named otherwise than its plugin.json."""
    folder = write_tree(tmp_path / "src" / TYPED, {
        ".claude-plugin/plugin.json": {"name": ID, "version": "1.0.0"},
        "commands/setup.md": "---\ndescription: set up\n---\nSet it up.\n",
    })  # fmt: skip
    home = tmp_path / "home"
    install_from(home, folder)
    return home


def _json(run_cli, home: Path, *args: str, code: int = 0) -> Any:
    done = run_cli(home, *args, "--json")
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)


def test_the_folder_name_typed_at_install_names_the_package(home: Path, run_cli) -> None:
    assert _json(run_cli, home, "trust", TYPED)["id"] == ID
    assert _json(run_cli, home, "enable", TYPED)["id"] == ID
    assert _json(run_cli, home, "inspect", TYPED)["id"] == ID
    (package,) = recorded(home)
    assert (package.trusted, package.enabled, package.aliases) == (True, True, {TYPED})


def test_a_path_to_the_folder_of_that_name_stays_a_folder(home: Path, run_cli) -> None:
    (home.parent / "user" / TYPED).mkdir(parents=True)
    done = _json(run_cli, home, "trust", f"./{TYPED}")
    assert done["changed"] == "workspace"


def test_a_name_no_package_answers_to_says_what_was_meant(home: Path, run_cli) -> None:
    done = run_cli(home, "trust", "claude-dev-environment-setp")
    assert done.returncode == 1
    assert f"(did you mean {TYPED}?)" in done.stderr
    refused = _json(run_cli, home, "enable", "dev-enviroment-setup", code=1)
    assert f"did you mean {ID}?" in refused["error"]


def test_every_verb_taking_ids_resolves_names() -> None:
    assert sorted(PACKAGE_NAME_VERBS) == sorted(_ARGUMENTS)


def test_install_says_the_other_names_it_answers_to(tmp_path: Path, run_cli) -> None:
    folder = write_tree(tmp_path / "src" / TYPED, {
        ".claude-plugin/plugin.json": {"name": ID, "version": "1.0.0"},
        "commands/setup.md": "---\ndescription: set up\n---\nSet it up.\n",
    })  # fmt: skip
    home = tmp_path / "home"
    assert _json(run_cli, home, "install", str(folder))["aliases"] == [TYPED]
    done = run_cli(home, "install", str(folder))
    assert f"also named {TYPED}" in done.stdout


def test_an_id_that_was_another_packages_name_says_that_name_moved(
    home: Path, tmp_path: Path, run_cli
) -> None:
    # home: ID, also named TYPED. A package whose own id is TYPED takes that name (an id
    # wins over an alias): the install says so, naming the package still reached by its id.
    other = write_tree(tmp_path / "src2" / "elsewhere", {
        ".claude-plugin/plugin.json": {"name": TYPED, "version": "2.0.0"},
        "commands/other.md": "---\ndescription: other\n---\nOther.\n",
    })  # fmt: skip
    done = _json(run_cli, home, "install", str(other))
    (said,) = [d for d in done["diagnostics"] if d["code"] == "install.name_shadowed"]
    assert said["message"] == (
        f"{TYPED} was also a name of {ID}: it now names this package; {ID} is still reached "
        "by its id"
    )
    assert _json(run_cli, home, "inspect", TYPED)["id"] == TYPED
    assert _json(run_cli, home, "inspect", ID)["id"] == ID


def test_an_install_that_takes_no_other_packages_name_says_nothing_of_names(
    tmp_path: Path, run_cli
) -> None:
    folder = write_tree(tmp_path / "src" / TYPED, {
        ".claude-plugin/plugin.json": {"name": ID, "version": "1.0.0"},
        "commands/setup.md": "---\ndescription: set up\n---\nSet it up.\n",
    })  # fmt: skip
    done = _json(run_cli, tmp_path / "home", "install", str(folder))
    assert [d for d in done["diagnostics"] if d["code"] == "install.name_shadowed"] == []
