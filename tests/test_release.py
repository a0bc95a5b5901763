"""What a release is made of agrees with itself: one version (gateway/base/_version.py) that
the changelog's top entry names, metadata PyPI accepts, and the README's install lines are
the lines CI runs (.ci/run, .ci/wheel-smoke, .ci/readme-install); .ci/release checks the
built artifacts."""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path

from trove_classifiers import classifiers as known_classifiers

from gateway.base import gateway_version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
_ENTRY = re.compile(r"^## (\S+) — (unreleased|\d{4}-\d{2}-\d{2})$", re.MULTILINE)


def test_the_changelogs_top_entry_is_the_version() -> None:
    entries = _ENTRY.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))
    assert entries, "CHANGELOG.md has no '## VERSION — DATE' entry"
    assert entries[0][0] == gateway_version()


def test_the_version_has_one_source() -> None:
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "gateway.base._version.VERSION"


# Where the version is written besides gateway/base/_version.py, because the format needs a
# literal (npm's manifest and lockfile, an image tag): CHANGELOG.md's "Cutting a release"
# names them; a bump that forgets one fails here.
_IMAGE_TAG = re.compile(r"extension-gateway:(\d[^\s\"']*)")


def test_every_file_that_must_name_the_version_names_this_one() -> None:
    version = gateway_version()
    manifest = json.loads((ROOT / "sidecars" / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ROOT / "sidecars" / "package-lock.json").read_text(encoding="utf-8"))
    found = {
        "sidecars/package.json": [manifest["version"]],
        "sidecars/package-lock.json": [lock["version"], lock["packages"][""]["version"]],
    }
    for name in ("deploy/kubernetes/deployment.yaml", "docs/deploy.md"):
        found[name] = _IMAGE_TAG.findall((ROOT / name).read_text(encoding="utf-8"))
    assert all(found.values()), found  # each still names it (a moved line is a changed rule)
    assert {name: tags for name, tags in found.items() if set(tags) != {version}} == {}


def test_the_release_steps_name_every_file_that_holds_the_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    steps = changelog[changelog.index("## Cutting a release") :]
    for name in ("gateway/base/_version.py", "sidecars/package.json", "sidecars/package-lock.json",
                 "deploy/kubernetes/deployment.yaml", "docs/deploy.md"):  # fmt: skip
        assert name in steps, name


def test_every_classifier_is_one_pypi_knows() -> None:
    unknown = [c for c in PYPROJECT["project"]["classifiers"] if c not in known_classifiers]
    assert unknown == []


def test_no_project_url_is_made_up() -> None:
    # No public address exists yet; CHANGELOG.md says how to add them at publication.
    assert "urls" not in PYPROJECT["project"]


def test_the_licence_the_metadata_names_is_shipped() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert all((ROOT / name).is_file() for name in PYPROJECT["project"]["license-files"])


def _readme_lines(name: str) -> list[str]:
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "readme-lines"), name], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_each_readme_install_block_is_run_by_a_ci_script() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    names = re.findall(r"^<!-- docs-test: skip install=(\w+) ", readme, re.MULTILINE)
    assert sorted(names) == ["git", "wheel"]
    scripts = {name: (ROOT / ".ci" / name).read_text(encoding="utf-8") for name in
               ("run", "wheel-smoke", "readme-install")}  # fmt: skip
    assert 'readme-lines" wheel' in scripts["wheel-smoke"]
    assert 'readme-lines" git' in scripts["readme-install"]
    assert "bash .ci/wheel-smoke" in scripts["run"] and "bash .ci/readme-install" in scripts["run"]
    assert len(_readme_lines("wheel")) == 4 and len(_readme_lines("git")) == 1


def test_ci_runs_the_readmes_clone_set_up_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    (suite,) = [line for line in readme.splitlines() if line.endswith(".venv/bin/pytest")]
    assert run[-1] == suite
