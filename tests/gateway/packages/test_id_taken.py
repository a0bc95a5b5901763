"""One id, one package: an install whose package has the id of an installed package of
another ecosystem or from another source is refused, naming that package and the way out
(``install.id_taken``); the same source reinstalls as before; ``--replace`` replaces it,
keeping nothing of it. (An id that was only another package's alias is no clash: see
test_names.py, ``install.name_shadowed``.)"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gateway.packages.secrets import read_secrets, set_secret
from tests._cli_runner import cli
from tests.gateway.packages._helpers import git, install_from, make_ready, nanobot, recorded
from tests.gateway.packages._registry import tarball

REPO = Path(__file__).resolve().parents[3]
NIMLET_NOTES = REPO / "examples" / ".nimlet" / "extensions" / "notes"
CODEX_NOTES = REPO / "tests" / "fixtures" / "codex" / "notes"


def _json(home: Path, *args: str, code: int = 0) -> Any:
    done = cli(home, *args, "--json")
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)


def _only(home: Path) -> tuple[str, str, str, Path]:
    (package,) = recorded(home)
    record = package.record
    return record.id, record.ecosystem, record.source, record.path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home holding the examples' nimlet extension ``notes``, installed from its folder."""
    home = tmp_path / "home"
    assert _json(home, "install", str(NIMLET_NOTES))["ecosystem"] == "nimlet"
    return home


def test_a_codex_plugin_with_the_id_of_a_nimlet_extension_is_refused(home: Path) -> None:
    before = _only(home)
    done = cli(home, "install", str(CODEX_NOTES))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "[install.id_taken]" in done.stderr
    assert f"the nimlet package notes from {NIMLET_NOTES} (a folder)" in done.stderr
    assert f"this is the codex package notes 1.0.0 from {CODEX_NOTES}" in done.stderr
    assert f"gateway install {CODEX_NOTES} --replace" in done.stderr
    assert "gateway uninstall notes" in done.stderr
    assert _only(home) == before  # the nimlet extension is still there, as it was


def test_a_nimlet_extension_with_the_id_of_a_codex_plugin_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _json(home, "install", str(CODEX_NOTES))
    before = _only(home)
    done = cli(home, "install", str(NIMLET_NOTES))
    assert done.returncode == 1
    assert f"the codex package notes 1.0.0 from {CODEX_NOTES} (a folder)" in done.stderr
    assert "[install.id_taken]" in done.stderr
    assert _only(home) == before


def test_the_refusal_in_json_carries_the_code_and_the_package(home: Path) -> None:
    refused = _json(home, "install", str(CODEX_NOTES), code=1)
    (taken,) = [d for d in refused["diagnostics"] if d["code"] == "install.id_taken"]
    assert (taken["severity"], taken["package"]) == ("error", "notes")
    assert "--replace" in taken["hint"] and "gateway uninstall notes" in taken["hint"]
    assert "nimlet package notes" in refused["error"]


def test_the_refused_install_leaves_the_installed_packages_decisions(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, nanobot(tmp_path / "one", "same.id", permissions=["workspace.read"]))
    make_ready(home, "same.id")
    set_secret(home, "same.id", "TOKEN", "kept")
    other = nanobot(tmp_path / "two", "same.id", version="2.0.0")
    _json(home, "install", str(other), code=1)
    (package,) = recorded(home)
    assert (package.record.version, package.trusted, package.enabled) == ("1.0.0", True, True)
    assert package.granted == {"workspace.read"}
    assert read_secrets(home, "same.id") == {"TOKEN": "kept"}


def test_another_folder_of_the_same_ecosystem_is_another_source(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _json(home, "install", str(nanobot(tmp_path / "one", "same.id")))
    done = cli(home, "install", str(nanobot(tmp_path / "two", "same.id", version="2.0.0")))
    assert done.returncode == 1
    assert f"the nanobot package same.id 1.0.0 from {tmp_path / 'one'}" in done.stderr


def test_the_same_folder_edited_is_reinstalled_and_says_it_changed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = nanobot(tmp_path / "src", "same.id", files={"a.txt": "one"})
    _json(home, "install", str(source))
    (source / "a.txt").write_text("two")
    done = cli(home, "install", str(source))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("reinstalled same.id 1.0.0 (nanobot)")
    # Its content changed: not "the same as before", and the gates are still to pass.
    assert "same content as before" not in done.stdout
    assert "gateway trust same.id" in done.stdout
    again = cli(home, "install", str(source))
    assert "same content as before" in again.stdout


def test_replace_installs_it_anew_keeping_nothing_of_the_other(home: Path) -> None:
    nimlet = recorded(home)[0]
    make_ready(home, "notes")
    set_secret(home, "notes", "TOKEN", "the nimlet one's")
    done = _json(home, "install", str(CODEX_NOTES), "--replace")
    assert (done["ecosystem"], done["created"]) == ("codex", True)
    assert done["replaced"] == {
        "id": "notes", "version": "", "ecosystem": "nimlet",
        "source": str(NIMLET_NOTES), "source_kind": "local",
    }  # fmt: skip
    (package,) = recorded(home)
    assert package.record.ecosystem == "codex"
    assert (package.trusted, package.enabled, package.granted) == (False, False, frozenset())
    assert read_secrets(home, "notes") == {}
    assert not nimlet.record.path.exists()  # the nimlet extension's files went with it


def test_replace_says_what_it_replaced(home: Path) -> None:
    done = cli(home, "install", str(CODEX_NOTES), "--replace")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"installed notes 1.0.0 (codex) from {CODEX_NOTES}\n")
    assert f"  replaced the nimlet package notes from {NIMLET_NOTES} (a folder)" in done.stdout
    assert "gateway trust notes" in done.stdout


def test_replace_of_the_same_source_is_a_reinstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = nanobot(tmp_path / "src", "same.id", permissions=["workspace.read"])
    _json(home, "install", str(source))
    make_ready(home, "same.id")
    done = _json(home, "install", str(source), "--replace")
    assert (done["created"], done["replaced"], done["trusted"]) == (False, None, True)


def test_a_git_repository_at_another_ref_is_the_same_source(tmp_path: Path) -> None:
    repository = nanobot(tmp_path / "repo", "git.pkg")
    git(repository, "init", "--quiet")
    git(repository, "add", ".")
    git(repository, "commit", "--quiet", "-m", "one")
    git(repository, "tag", "v1")
    nanobot(repository, "git.pkg", version="2.0.0")
    git(repository, "commit", "--quiet", "-am", "two")
    home = tmp_path / "home"
    url = f"{repository}/.git"
    assert _json(home, "install", f"{url}#v1")["version"] == "1.0.0"
    assert _json(home, "install", url)["version"] == "2.0.0"  # the same repository
    shutil.copytree(repository, tmp_path / "fork")
    refused = _json(home, "install", f"{tmp_path / 'fork'}/.git", code=1)
    assert "install.id_taken" in [d["code"] for d in refused["diagnostics"]]
    assert f"from {url} (" in refused["error"]


def test_an_npm_package_is_its_npm_name(tmp_path: Path) -> None:
    def packed(name: str, npm_name: str, version: str) -> Path:
        manifest = {"id": "npm.pkg", "name": "npm.pkg", "version": version, "apiVersion": 1,
                    "runtime": "declarative", "permissions": [], "dependencies": []}  # fmt: skip
        files = {"package.json": {"name": npm_name, "version": version},
                 "nanobot.extension.json": manifest}  # fmt: skip
        path = tmp_path / name
        path.write_bytes(tarball(files))
        return path

    home = tmp_path / "home"
    _json(home, "install", str(packed("a-1.tgz", "npm-pkg", "1.0.0")), "--kind", "npm")
    again = _json(home, "install", str(packed("a-2.tgz", "npm-pkg", "2.0.0")), "--kind", "npm")
    assert (again["created"], again["version"]) == (False, "2.0.0")
    other = packed("b-1.tgz", "another-pkg", "1.0.0")
    refused = _json(home, "install", str(other), "--kind", "npm", code=1)
    assert "install.id_taken" in [d["code"] for d in refused["diagnostics"]]
