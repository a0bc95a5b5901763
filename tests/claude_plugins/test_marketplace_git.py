"""A Claude Code marketplace that is a git repository (``URL#PLUGIN``, ``URL#REF#PLUGIN``,
GitHub's ``OWNER/REPO#PLUGIN``) and the ``git-subdir`` plugin source, against real git
repositories made here; ``https://`` URLs reach them through git's own ``insteadOf``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gateway.packages import InstallError
from gateway.packages._offered import subfolder
from gateway.packages._sources import Source, parse_source
from gateway.packages._tools import FetchError
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


def test_a_plugin_of_a_git_marketplace_installs_from_url_hash_plugin(tmp_path: Path) -> None:
    bare = git_market(tmp_path)
    home = tmp_path / "home"
    install_source(home, f"{bare}#notes")
    (package,) = recorded(home)
    assert (package.id, package.record.version) == ("notes", "2.0.0")
    assert package.record.source_kind == "git"
    commit = git(bare, "rev-parse", "main")
    assert package.record.source == f"{bare}##notes ({commit})"
    assert not (package.record.path / ".claude-plugin" / "marketplace.json").exists()


def test_a_ref_before_the_plugin_name_picks_the_marketplace_s_version(tmp_path: Path) -> None:
    bare = git_market(tmp_path)
    home = tmp_path / "home"
    install_source(home, f"{bare}#v1#notes")
    (package,) = recorded(home)
    assert package.record.version == "1.0.0"
    assert package.record.source.startswith(f"{bare}#v1#notes (")


def test_a_name_that_is_no_ref_nor_plugin_lists_what_the_marketplace_offers(
    tmp_path: Path,
) -> None:
    bare = git_market(tmp_path)
    with pytest.raises(InstallError) as raised:
        install_source(tmp_path / "home", f"{bare}#nope")
    assert raised.value.diagnostics[0].code == "claude.marketplace_plugin_unknown"
    assert "notes" in raised.value.diagnostics[0].message
    assert recorded(tmp_path / "home") == []


def test_a_name_that_is_no_ref_of_a_plain_repository_says_both(tmp_path: Path) -> None:
    bare = tmp_path / "plain.git"
    repository(bare, plugin("plain"))
    with pytest.raises(InstallError, match=r"not a branch, tag or commit.*no marketplace"):
        install_source(tmp_path / "home", f"{bare}#nope")


def test_a_ref_of_a_plain_repository_stays_a_ref(tmp_path: Path) -> None:
    bare = tmp_path / "plain.git"
    repository(bare, plugin("plain"))
    home = tmp_path / "home"
    install_source(home, f"{bare}#main")
    (package,) = recorded(home)
    assert package.id == "plain" and package.record.source.startswith(f"{bare}#main (")


def test_owner_repo_hash_is_a_github_marketplace() -> None:
    # One `#`: a ref, or (when the repository has no such ref) the plugin: decided by git.
    assert parse_source("acme/market#notes") == Source(
        "git", "https://github.com/acme/market.git", "notes"
    )
    assert parse_source("acme/market#v2#notes") == Source(
        "git", "https://github.com/acme/market.git", "v2", "notes"
    )


def test_owner_repo_without_a_plugin_is_still_a_missing_path() -> None:
    with pytest.raises(FetchError, match="OWNER/REPO#PLUGIN"):
        parse_source("acme/market")


def test_a_github_marketplace_installs_through_git(tmp_path: Path, hosts: Path) -> None:
    repository(hosts / "github" / "acme" / "market.git", {
        **marketplace_files([{"name": "notes", "source": "./plugins/notes"}]),
        **{f"plugins/notes/{k}": v for k, v in plugin("notes").items()},
    })  # fmt: skip
    home = tmp_path / "home"
    install_source(home, "acme/market#notes")
    (package,) = recorded(home)
    assert package.id == "notes"
    assert package.record.source.startswith("https://github.com/acme/market.git##notes (")


def _monorepo(hosts: Path) -> tuple[Path, str]:
    bare = hosts / "example" / "mono.git"
    work = repository(bare, {"README.md": "mono\n"})
    files = {f"providers/claude/plugin/{k}": v for k, v in plugin("stripe-ish").items()}
    return bare, push(work, bare, {**files, "secret.txt": "not the plugin's\n"})


def _local_market(tmp_path: Path, source: dict[str, object]) -> Path:
    market = tmp_path / "market"
    write(market, marketplace_files([{"name": "stripe-ish", "source": source}]))
    return market


def test_a_git_subdir_source_installs_only_that_folder(tmp_path: Path, hosts: Path) -> None:
    _, commit = _monorepo(hosts)
    source = {"source": "git-subdir", "url": "https://git.example.test/mono.git",
              "path": "providers/claude/plugin", "ref": "main", "sha": commit}  # fmt: skip
    home = tmp_path / "home"
    install_source(home, f"{_local_market(tmp_path, source)}#stripe-ish")
    (package,) = recorded(home)
    assert package.id == "stripe-ish"
    assert (package.record.path / "commands" / "stripe-ish.md").is_file()
    assert not (package.record.path / "secret.txt").exists()
    assert not (package.record.path / "README.md").exists()
    assert f"mono.git#{commit} providers/claude/plugin {commit}" in package.record.source


@pytest.mark.parametrize("path", ["../mono", "/etc", "providers/../../x", "a\\..\\b", ""])
def test_a_git_subdir_path_leaving_the_clone_is_refused(tmp_path: Path, path: str) -> None:
    source = {"source": "git-subdir", "url": "https://git.example.test/mono.git", "path": path}
    with pytest.raises(InstallError) as raised:
        install_source(tmp_path / "home", f"{_local_market(tmp_path, source)}#stripe-ish")
    assert raised.value.diagnostics[0].code == "claude.marketplace_invalid"
    assert recorded(tmp_path / "home") == []


def test_a_git_subdir_path_through_a_symlink_out_is_refused(tmp_path: Path, hosts: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, plugin("stripe-ish"))
    bare = hosts / "example" / "mono.git"
    work = repository(bare, {"README.md": "mono\n"})
    os.symlink(outside, work / "plugin")
    push(work, bare, {})
    source = {"source": "git-subdir", "url": "https://git.example.test/mono.git", "path": "plugin"}
    with pytest.raises(InstallError, match="outside"):
        install_source(tmp_path / "home", f"{_local_market(tmp_path, source)}#stripe-ish")
    assert recorded(tmp_path / "home") == []


def test_a_subfolder_stays_under_its_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / "inner").mkdir(parents=True)
    (tmp_path / "repo" / "link").symlink_to(tmp_path / "repo" / "inner")
    assert subfolder(tmp_path / "repo", "inner") == tmp_path / "repo" / "inner"
    for escaping in ("../repo", "/tmp", "link", "inner/../../repo", "missing"):
        with pytest.raises(FetchError):
            subfolder(tmp_path / "repo", escaping)


def test_a_url_of_a_bare_marketplace_json_is_refused_with_the_forms_that_work() -> None:
    with pytest.raises(FetchError, match=r"marketplace\.json by URL is not read.*OWNER/REPO"):
        parse_source("https://example.com/marketplace.json#notes")
