"""A package with no name of its own (a folder of skills) is named after its folder as its
source names it — the folder, the repository, an sdist's project — never after the staging
folder the installer fetched it into (every such package was ``package``), and ``inspect``
of it shows that name, not its version folder's."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

from tests.adapters._helpers import write_tree
from tests.gateway.packages._helpers import git, install_from

SKILLS = {
    "skills/a/SKILL.md": "---\nname: a\ndescription: A skill\n---\nbody\n",
    "skills/b/SKILL.md": "---\nname: b\ndescription: B skill\n---\nbody\n",
}


def test_a_folder_of_skills_is_named_after_its_folder(tmp_path: Path, run_cli) -> None:
    folder = write_tree(tmp_path / "src" / "my-skills", SKILLS)
    home = tmp_path / "home"
    assert install_from(home, folder).package.id == "my-skills"
    done = run_cli(home, "inspect", "my-skills", "--json")
    assert done.returncode == 0, done.stderr
    assert (json.loads(done.stdout)["id"], json.loads(done.stdout)["name"]) == (
        "my-skills", "my-skills")  # fmt: skip
    shown = run_cli(home, "inspect", "my-skills").stdout
    assert shown.startswith("my-skills — nimlet package, runtime declarative\n"), shown


def test_a_git_repository_of_skills_is_named_after_the_repository(tmp_path: Path) -> None:
    repository = write_tree(tmp_path / "team-skills", SKILLS)
    git(repository, "init", "--quiet")
    git(repository, "add", "-A")
    git(repository, "commit", "--quiet", "-m", "skills")
    report = install_from(tmp_path / "home", repository, kind="git")
    assert report.package.id == "team-skills"


def test_an_sdist_is_named_after_its_project_without_its_version(tmp_path: Path) -> None:
    """A PyPI sdist holds ``NAME-VERSION/``: klodi_nanobot-0.3.12.tar.gz, a folder of
    skills, installed as ``package``."""
    folder = write_tree(tmp_path / "src" / "klodi_nanobot-0.3.12", SKILLS)
    archive = tmp_path / "klodi_nanobot-0.3.12.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=folder.name)
    report = install_from(tmp_path / "home", archive, kind=None)
    assert (report.package.id, report.package.record.source_kind) == ("klodi_nanobot", "npm")


def test_an_installed_package_json_without_a_name_is_named_after_its_source_folder(
    tmp_path: Path, run_cli
) -> None:
    """Read again once installed, a Pi package.json without `name` fell back to the version
    folder's name: "using the directory name 'cfe196c3…'"."""
    manifest = {"pi": {"skills": ["./skills"]}}
    folder = write_tree(tmp_path / "src" / "pi-unnamed", {"package.json": manifest, **SKILLS})
    home = tmp_path / "home"
    assert install_from(home, folder).package.id == "pi-unnamed"
    inspected = json.loads(run_cli(home, "inspect", "pi-unnamed", "--json").stdout)
    (missing,) = [
        d["message"] for d in inspected["diagnostics"] if d["code"] == "package.name_missing"
    ]
    assert (inspected["id"], missing) == (
        "pi-unnamed", "package.json: name is missing; using the directory name 'pi-unnamed'")  # fmt: skip
