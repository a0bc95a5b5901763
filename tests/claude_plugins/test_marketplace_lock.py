"""A marketplace's plugin in ``gateway lock``, ``sync``, ``outdated`` and ``update``: the
lockfile names the marketplace, the plugin and where the marketplace said it comes from;
sync into an empty home installs it again from there; outdated compares the plugin's files
as the marketplace offers them now with the ones installed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gateway.audit._sources import locate
from gateway.base import GatewayConfig
from gateway.packages import (
    check_outdated,
    load_adapters,
    lock_home,
    read_lockfile,
    render_lockfile,
    sync,
    update_package,
)
from gateway.packages._lockfile import LockfileError
from tests._cli_runner import cli_json
from tests.claude_plugins._markets import (
    git_market,
    install_source,
    marketplace_files,
    plugin,
    push,
    repository,
    write,
)
from tests.gateway.packages._helpers import git, recorded

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claude_marketplace"


def _locked_source(home: Path) -> dict[str, object]:
    (package,) = json.loads(render_lockfile(lock_home(home)))["packages"]
    return package["source"]


def _sync_into_empty(home: Path, tmp_path: Path) -> Path:
    path = tmp_path / "gateway.lock"
    path.write_text(render_lockfile(lock_home(home)))
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    sync(fresh, read_lockfile(path), inspector=load_adapters().inspect)
    return fresh


def test_a_folder_marketplace_s_plugin_is_locked_and_synced(tmp_path: Path) -> None:
    market = tmp_path / "market"
    shutil.copytree(FIXTURE, market)
    home = tmp_path / "home"
    install_source(home, f"{market}#release-notes")
    assert _locked_source(home) == {"kind": "local", "path": str(market), "plugin": "release-notes"}
    fresh = _sync_into_empty(home, tmp_path)
    (before,), (after,) = recorded(home), recorded(fresh)
    assert (after.id, after.record.content_hash) == (before.id, before.record.content_hash)
    assert after.record.source == f"{market}#release-notes"


def test_a_git_marketplace_s_plugin_syncs_at_the_locked_commit(tmp_path: Path) -> None:
    bare = git_market(tmp_path)
    home = tmp_path / "home"
    install_source(home, f"{bare}#notes")
    commit = git(bare, "rev-parse", "main")
    assert _locked_source(home) == {
        "kind": "git", "url": str(bare), "ref": None, "commit": commit, "plugin": "notes",
    }  # fmt: skip
    work = tmp_path / "market-work"
    push(work, bare, {f"plugins/notes/{k}": v for k, v in plugin("notes", "3.0.0").items()})
    fresh = _sync_into_empty(home, tmp_path)
    (after,) = recorded(fresh)
    assert after.record.version == "2.0.0"  # the locked commit, not the marketplace's new one


def test_a_remote_plugin_s_offered_source_is_locked(tmp_path: Path) -> None:
    bare = tmp_path / "plugin.git"
    repository(bare, plugin("far"))
    # A folder marketplace naming a git repository on disk is refused (package text); the
    # plugin's repository is reached as git would, through an https URL git rewrites.
    user = tmp_path / "user"
    user.mkdir()
    (user / ".gitconfig").write_text(
        f'[url "{tmp_path}/"]\n\tinsteadOf = https://git.example.test/\n'
    )
    market = tmp_path / "market"
    entry = {
        "name": "far",
        "source": {"source": "url", "url": "https://git.example.test/plugin.git"},
    }
    write(market, marketplace_files([entry]))
    home = tmp_path / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(user))
        install_source(home, f"{market}#far")
        source = _locked_source(home)
        commit = git(bare, "rev-parse", "main")
        assert source["plugin"] == "far"
        assert source["offered"] == f"git https://git.example.test/plugin.git {commit}"
        fresh = _sync_into_empty(home, tmp_path)
    assert [p.id for p in recorded(fresh)] == ["far"]


def test_outdated_compares_the_plugin_s_files_not_the_marketplace_s_commit(
    tmp_path: Path,
) -> None:
    bare = git_market(tmp_path)
    home = tmp_path / "home"
    install_source(home, f"{bare}#notes")
    work = tmp_path / "market-work"
    push(work, bare, {"README.md": "the marketplace moved, the plugin did not\n"})
    (package,) = recorded(home)
    assert not check_outdated(home, package).outdated
    push(work, bare, {f"plugins/notes/{k}": v for k, v in plugin("notes", "3.0.0").items()})
    check = check_outdated(home, package)
    assert check.outdated and check.install_source == f"{bare}##notes"
    updated = update_package(home, package)
    assert updated.report is not None and updated.report.package.record.version == "3.0.0"
    (after,) = recorded(home)
    assert not check_outdated(home, after).outdated


def test_outdated_of_a_folder_marketplace_s_plugin_sees_its_files_change(tmp_path: Path) -> None:
    market = tmp_path / "market"
    shutil.copytree(FIXTURE, market)
    home = tmp_path / "home"
    install_source(home, f"{market}#release-notes")
    (package,) = recorded(home)
    assert not check_outdated(home, package).outdated
    (market / "plugins" / "release-notes" / "commands" / "notes.md").write_text("Changed.\n")
    assert check_outdated(home, package).outdated


@pytest.mark.parametrize("plugin_name", ["../x", "a/b", "", "-x"])
def test_a_lockfile_plugin_that_is_no_name_is_refused(tmp_path: Path, plugin_name: str) -> None:
    source = {"kind": "local", "path": str(tmp_path), "plugin": plugin_name}
    package = {"id": "p", "source": source, "integrity": "sha256:" + "0" * 64}
    path = tmp_path / "gateway.lock"
    path.write_text(json.dumps({"lockfile": 1, "packages": [package]}))
    with pytest.raises(LockfileError) as raised:
        read_lockfile(path)
    assert raised.value.diagnostic.code == "lock.invalid"


def test_the_cli_locks_and_syncs_a_git_marketplace_s_plugin_exactly(tmp_path: Path) -> None:
    bare = git_market(tmp_path)
    one, two = tmp_path / "one", tmp_path / "two"
    cli_json(one, "install", f"{bare}#v1#notes")
    cli_json(one, "trust", "notes")
    cli_json(one, "enable", "notes")
    lockfile = tmp_path / "gateway.lock"
    cli_json(one, "lock", "--out", str(lockfile))
    two.mkdir()
    synced = cli_json(two, "sync", "--lockfile", str(lockfile), "--frozen", "--accept")
    assert synced["installed"] == ["notes"] and synced["differences"] == []
    (package,) = recorded(two)
    assert package.record.version == "1.0.0" and package.trusted
    (current,) = cli_json(two, "outdated")["packages"]
    assert (current["id"], current["outdated"], current["note"]) == ("notes", False, "")


def test_audit_reads_the_marketplace_s_plugin_not_the_marketplace(tmp_path: Path) -> None:
    bare = git_market(tmp_path)
    config = GatewayConfig(home=tmp_path / "home")
    with locate(f"{FIXTURE}#release-notes", config) as located:
        assert (located.root / "commands" / "notes.md").is_file()
        assert not (located.root / ".claude-plugin" / "marketplace.json").exists()
    with locate(f"{bare}#v1#notes", config) as located:
        assert (located.root / "commands" / "notes.md").read_text() == "Do notes 1.0.0.\n"
