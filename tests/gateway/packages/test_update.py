"""``gateway outdated`` and ``gateway update``: a local folder whose content changed, new
commits on a git source's ref; an update keeps trust only when the requested permissions
did not grow."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.gateway.packages._helpers import git, nanobot

PACKAGE = "upd.pkg"


@pytest.fixture
def gw(run_cli):
    def run(home: Path, *args: str, code: int = 0):
        done = run_cli(home, *args, "--json")
        assert done.returncode == code, (done.stdout, done.stderr)
        return json.loads(done.stdout)

    return run


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return nanobot(tmp_path / "src", PACKAGE, permissions=["workspace.read"])


@pytest.fixture
def home(tmp_path: Path, source: Path, gw) -> Path:
    home = tmp_path / "home"
    gw(home, "install", str(source))
    gw(home, "trust", PACKAGE)
    return home


def _trusted(gw, home: Path) -> bool:
    (package,) = gw(home, "status")["packages"]
    return bool(package["gates"]["trusted"])


def test_an_unchanged_local_folder_is_not_outdated(home: Path, gw) -> None:
    (check,) = gw(home, "outdated")["packages"]
    assert (check["id"], check["kind"], check["outdated"]) == (PACKAGE, "local", False)


def test_a_changed_local_folder_is_outdated(home: Path, source: Path, gw) -> None:
    (source / "notes.txt").write_text("new")
    (check,) = gw(home, "outdated")["packages"]
    assert check["outdated"] is True and check["available"].startswith("sha256:")


def test_plain_outdated_and_update_show_short_hashes(home: Path, source: Path, run_cli) -> None:
    """A content hash is 71 characters: the table and the update line show `sha256:` and 12
    hex digits and `…`, as `trust` does; `--json` keeps the whole of it."""
    (source / "notes.txt").write_text("new")
    shown = run_cli(home, "outdated").stdout
    hashes = re.findall(r"sha256:[0-9a-f]+…?", shown)
    assert len(hashes) == 2 and all(len(h) == len("sha256:") + 13 for h in hashes), shown
    updated = run_cli(home, "update", PACKAGE).stdout
    assert re.search(r"updated sha256:[0-9a-f]{12}… → sha256:[0-9a-f]{12}…$", updated, re.M), (
        updated
    )


def test_a_package_whose_source_cannot_be_checked_is_not_said_to_be_up_to_date(
    home: Path, source: Path, run_cli
) -> None:
    """``outdated`` shows `?` and the reason; ``update`` said `up to date (…)` of it."""
    source.rename(source.with_name("moved"))
    updated = run_cli(home, "update", PACKAGE).stdout
    assert updated == f"{PACKAGE}: not checked ({source} is gone)\n", updated


def test_an_update_whose_permissions_did_not_grow_keeps_trust(home: Path, source: Path, gw) -> None:
    (source / "notes.txt").write_text("new")
    (result,) = gw(home, "update", PACKAGE)["packages"]
    assert result["updated"] is True and result["trust_kept"] is True
    assert _trusted(gw, home)
    assert gw(home, "outdated")["packages"][0]["outdated"] is False


def test_an_update_whose_permissions_grew_revokes_trust_and_names_the_command(
    tmp_path: Path, home: Path, gw
) -> None:
    nanobot(tmp_path / "src", PACKAGE, permissions=["workspace.read", "net.fetch"])
    (result,) = gw(home, "update")["packages"]
    assert result["permissions_grown"] == ["net.fetch"] and result["trusted"] is False
    (said,) = [d for d in result["diagnostics"] if d["code"] == "update.permissions_grew"]
    assert said["hint"] == f"gateway trust {PACKAGE}"
    assert not _trusted(gw, home)


def test_an_unknown_id_is_refused_and_nothing_changes(home: Path, source: Path, gw) -> None:
    (source / "notes.txt").write_text("new")
    refused = gw(home, "update", PACKAGE, "no.such", code=1)
    assert [d["code"] for d in refused["diagnostics"]] == ["package.unknown"]
    assert gw(home, "outdated")["packages"][0]["outdated"] is True


def _repository(folder: Path) -> Path:
    """A git repository of the package, one commit on ``main``."""
    repository = nanobot(folder, PACKAGE)
    git(repository, "init", "-q", "-b", "main")
    _commit(repository, "one")
    return repository


def _commit(repository: Path, message: str) -> str:
    (repository / f"{message}.txt").write_text(message)
    git(repository, "add", "-A")
    git(repository, "commit", "-qm", message)
    return git(repository, "rev-parse", "HEAD")


def test_new_commits_on_the_recorded_git_ref_are_outdated(tmp_path: Path, gw) -> None:
    repository = _repository(tmp_path / "repo")
    home = tmp_path / "home"
    gw(home, "install", f"{repository}#main", "--kind", "git")
    assert gw(home, "outdated")["packages"][0]["outdated"] is False
    newer = _commit(repository, "two")
    (check,) = gw(home, "outdated")["packages"]
    assert check["outdated"] is True and check["available"] == newer
    (result,) = gw(home, "update")["packages"]
    assert result["updated"] is True
    assert gw(home, "outdated")["packages"][0]["outdated"] is False


def test_a_home_synced_from_a_lockfile_follows_the_locked_branch(tmp_path: Path, gw) -> None:
    repository = _repository(tmp_path / "repo")
    first = tmp_path / "home"
    gw(first, "install", f"{repository}#main", "--kind", "git")
    lockfile = tmp_path / "gateway.lock"
    gw(first, "lock", "--out", str(lockfile))
    synced = tmp_path / "synced"
    gw(synced, "sync", "--lockfile", str(lockfile), "--accept")
    assert gw(synced, "outdated")["packages"][0]["outdated"] is False
    newer = _commit(repository, "two")
    # Installed at the locked commit, following main: its new commit is newer, as it is in
    # the home the lockfile was written from (not "pinned to a commit").
    (check,) = gw(synced, "outdated")["packages"]
    assert check["outdated"] is True and check["available"] == newer
    relocked = tmp_path / "again.lock"
    gw(synced, "lock", "--out", str(relocked))
    assert json.loads(relocked.read_text()) == json.loads(lockfile.read_text())
