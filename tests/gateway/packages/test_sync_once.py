"""``gateway sync`` fetches each package once: the copy it checks against the lockfile is
the copy it places — counted where a source is read (a folder copied, an npm tarball
unpacked, a repository cloned) — and a package that fails its check or its placing leaves
nothing of itself behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gateway.packages import _npm, _placing, _sources
from gateway.packages._installer import packages_dir
from gateway.packages._locks import lock_path, try_lock
from gateway.packages._sync import SYNC_LOCK
from gateway.store import StoreError
from tests.gateway.packages._helpers import (
    REPO,
    cli,
    cli_json,
    git,
    install_from,
    nanobot,
    recorded,
    staging_leftovers,
    version_folders,
)

TARBALL = REPO / "tests" / "fixtures" / "npm" / "pi-aliases-1.0.7.tgz"


@pytest.fixture
def sources(tmp_path: Path) -> dict[str, Path]:
    repository = nanobot(tmp_path / "repo", "once.git")
    git(repository, "init", "--quiet")
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "-m", "one")
    return {
        "once.a": nanobot(tmp_path / "a", "once.a", files={"a": "1"}).resolve(),
        "once.b": nanobot(tmp_path / "b", "once.b", files={"b": "1"}).resolve(),
        "once.git": repository.resolve(),
    }


@pytest.fixture
def lockfile(sources: dict[str, Path], tmp_path: Path) -> Path:
    """A home of two folders, a git repository and an npm tarball, written down."""
    home = tmp_path / "one"
    install_from(home, sources["once.a"])
    install_from(home, sources["once.b"])
    install_from(home, f"{sources['once.git']}#main", kind="git")
    install_from(home, TARBALL, kind="npm")
    path = tmp_path / "gateway.lock"
    assert cli(home, "lock", "--out", str(path)).returncode == 0
    return path


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every time a source is read: a folder copied, a tarball unpacked, a clone made."""
    counted: Counter[str] = Counter()
    copy_tree, extract_tarball, run_tool = (
        _sources.copy_tree, _npm.extract_tarball, _sources.run_tool)  # fmt: skip

    def copying(source: Path, *args: Any, **kwargs: Any) -> Any:
        counted[f"copy {source}"] += 1
        return copy_tree(source, *args, **kwargs)

    def unpacking(archive: Path, *args: Any, **kwargs: Any) -> Any:
        counted[f"unpack {archive.name}"] += 1
        return extract_tarball(archive, *args, **kwargs)

    def running(command: list[str], *args: Any, **kwargs: Any) -> Any:
        if "clone" in command:
            counted[f"clone {command[-2]}"] += 1
        return run_tool(command, *args, **kwargs)

    monkeypatch.setattr(_sources, "copy_tree", copying)
    monkeypatch.setattr(_npm, "extract_tarball", unpacking)
    monkeypatch.setattr(_sources, "run_tool", running)
    return counted


def test_sync_fetches_and_unpacks_each_package_once(
    lockfile: Path, sources: dict[str, Path], reads: Counter[str], tmp_path: Path
) -> None:
    home = tmp_path / "two"
    done = cli_json(home, "sync", "--lockfile", str(lockfile), "--accept")
    assert sorted(done["installed"]) == ["once.a", "once.b", "once.git", "pi-aliases"]
    assert reads == {
        f"copy {sources['once.a']}": 1,
        f"copy {sources['once.b']}": 1,
        f"clone {sources['once.git']}": 1,
        f"unpack {TARBALL.name}": 1,
    }


def test_the_synced_home_holds_what_the_lockfile_pins(lockfile: Path, tmp_path: Path) -> None:
    home = tmp_path / "two"
    cli_json(home, "sync", "--lockfile", str(lockfile), "--accept")
    locked = {p["id"]: p["integrity"] for p in json.loads(lockfile.read_text())["packages"]}
    assert {p.id: p.record.content_hash for p in recorded(home)} == locked
    assert len(version_folders(home)) == len(locked) and staging_leftovers(home) == []


def _home_with_extra(tmp_path: Path) -> Path:
    home = tmp_path / "two"
    install_from(home, nanobot(tmp_path / "extra", "extra.pkg"))
    return home


def test_a_package_that_differs_from_the_lockfile_refuses_the_sync_and_leaves_nothing(
    lockfile: Path, sources: dict[str, Path], reads: Counter[str], tmp_path: Path
) -> None:
    (sources["once.b"] / "b").write_text("changed after locking")
    home = _home_with_extra(tmp_path)
    before = (recorded(home), version_folders(home))
    done = cli_json(home, "sync", "--lockfile", str(lockfile), "--accept", code=1)
    (said,) = done["diagnostics"]
    assert (said["code"], said["package"]) == ("lock.integrity_mismatch", "once.b")
    assert "content 'sha256:" in said["message"]
    assert (recorded(home), version_folders(home)) == before  # extra.pkg stays too
    assert staging_leftovers(home) == []
    assert not [p for p in home.iterdir() if p.name.startswith(".sync-")]
    assert reads[f"copy {sources['once.a']}"] == 1  # checked, then dropped unplaced


def test_a_package_that_cannot_be_placed_stops_the_sync_with_nothing_of_it_left(
    lockfile: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record_install = _placing.record_install

    def failing(home: Path, entry: Any, *args: Any, **kwargs: Any) -> Any:
        if entry.id == "once.b":
            raise StoreError("the disk is full")
        return record_install(home, entry, *args, **kwargs)

    monkeypatch.setattr(_placing, "record_install", failing)
    home = _home_with_extra(tmp_path)
    done = cli_json(home, "sync", "--lockfile", str(lockfile), "--accept", code=1)
    assert done["error"].startswith("sync stopped part way")
    (said,) = done["diagnostics"]
    assert said["package"] == "once.b" and said["code"] == "lock.fetch_failed"
    assert said["message"].endswith("the disk is full (after 1 of the changes were made)")
    # once.a was placed; once.b and what comes after it were not, nor was extra.pkg removed.
    assert sorted(p.id for p in recorded(home)) == ["extra.pkg", "once.a"]
    assert len(version_folders(home)) == 2 and staging_leftovers(home) == []


def test_two_locked_packages_fetching_one_id_are_refused_without_waiting(
    lockfile: Path, sources: dict[str, Path], tmp_path: Path
) -> None:
    data = json.loads(lockfile.read_text())
    (second,) = [p for p in data["packages"] if p["id"] == "once.b"]
    second["source"]["path"] = str(sources["once.a"])  # once.a's folder under once.b
    lockfile.write_text(json.dumps(data))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env |= {"GATEWAY_HOME": str(tmp_path / "two"), "HOME": str(tmp_path)}
    # A process of its own: one that waited for its own lock would never end.
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "sync", "--lockfile", str(lockfile), "--json"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    said = {d["package"]: d for d in json.loads(done.stdout)["diagnostics"]}
    assert said["once.b"]["code"] == "lock.integrity_mismatch"
    assert "id 'once.a' (locked 'once.b')" in said["once.b"]["message"]
    assert recorded(tmp_path / "two") == []


def test_a_sync_places_under_the_homes_sync_lock(
    lockfile: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A sync holds several packages' locks at once: two syncs of one home would each wait
    for the other's, so a home's syncs run one after another."""
    home = tmp_path / "two"
    record_install = _placing.record_install
    free_while_placing: list[bool] = []

    def placing(at: Path, *args: Any, **kwargs: Any) -> Any:
        with try_lock(lock_path(packages_dir(at), SYNC_LOCK)) as free:
            free_while_placing.append(free)
        return record_install(at, *args, **kwargs)

    monkeypatch.setattr(_placing, "record_install", placing)
    cli_json(home, "sync", "--lockfile", str(lockfile), "--accept")
    assert free_while_placing == [False] * 4
    with try_lock(lock_path(packages_dir(home), SYNC_LOCK)) as free:
        assert free  # let go once the sync is done
