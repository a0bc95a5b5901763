"""From declarations and grants to a policy; the defaults every package gets."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from gateway.model import CatalogEntry, Contribution, Permission
from gateway.sandbox import (
    Destination,
    NetworkAccess,
    PackageGrants,
    SandboxPolicy,
    exposed_paths,
    grants_from,
    package_sandbox,
    policy_for_entry,
    python_runtime_paths,
    system_policy,
)


def test_nimlet_capabilities_and_namespaced_permissions_become_grants() -> None:
    assert grants_from(["read", "user"]) == PackageGrants()
    assert grants_from(["write"]) == PackageGrants(workspace_write=True)
    assert grants_from(["workspace.write"]) == PackageGrants(workspace_write=True)
    assert grants_from(["network"]).network
    assert grants_from(["network.http"]).network
    assert not grants_from(["networking.fun", "acme.network"]).network


def test_destination_grants_reach_only_their_hosts_through_the_proxy(tmp_path: Path) -> None:
    """A remote MCP server's ``network:HOST:PORT``: those destinations only, through the
    egress proxy (a network namespace of its own); a bare ``network`` opens it all."""

    def network(*granted: str) -> NetworkAccess:
        grants = grants_from(granted)
        return package_sandbox(home=tmp_path / "home", package_id="p", package_root=None,
                               workspace=None, grants=grants, create=False).policy.network  # fmt: skip

    assert network("network:mcp.example.com:443", "network:[::1]:8443") == NetworkAccess.to(
        [Destination("mcp.example.com", 443), Destination("::1", 8443)]
    )
    assert network("network:mcp.example.com:443", "network") == NetworkAccess.unrestricted()
    assert network("network:api.example.com") == NetworkAccess.to([Destination("api.example.com")])
    assert network() == NetworkAccess()


def test_a_package_gets_its_own_data_and_temp_folders_0700(tmp_path: Path) -> None:
    sandbox = package_sandbox(home=tmp_path / "home", package_id="@acme/../tool",
                              package_root=None, workspace=None, grants=PackageGrants())  # fmt: skip
    for folder in (sandbox.data_dir, sandbox.tmp_dir):
        assert folder.is_dir() and stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(folder.parent.stat().st_mode) == 0o700
        assert folder.parent.parent == tmp_path / "home"  # the name could not climb out
    assert sandbox.environment == {
        "TMPDIR": str(sandbox.tmp_dir),
        "GATEWAY_DATA_DIR": str(sandbox.data_dir),
        "HOME": str(sandbox.home_dir),
    }
    assert sandbox.data_dir in sandbox.policy.write and sandbox.tmp_dir in sandbox.policy.write


def test_a_policy_can_be_described_without_making_folders(tmp_path: Path) -> None:
    sandbox = package_sandbox(home=tmp_path / "home", package_id="p", package_root=None,
                              workspace=None, grants=PackageGrants(), create=False)  # fmt: skip
    assert sandbox.data_dir in sandbox.policy.write and not (tmp_path / "home").exists()


def test_the_workspace_is_read_only_without_a_write_grant(tmp_path: Path) -> None:
    def build(grants: PackageGrants) -> SandboxPolicy:
        return package_sandbox(home=tmp_path / "home", package_id="p", package_root=tmp_path / "pkg",
                               workspace=tmp_path / "ws", grants=grants).policy  # fmt: skip

    read_only = build(PackageGrants())
    assert tmp_path / "ws" in read_only.read and tmp_path / "ws" not in read_only.write
    assert tmp_path / "pkg" in read_only.execute
    assert not read_only.network.any
    writable = build(PackageGrants(workspace_write=True, network=True))
    assert tmp_path / "ws" in writable.write
    assert writable.network == NetworkAccess.unrestricted()


def test_a_pi_package_declares_nothing_so_it_gets_the_defaults(tmp_path: Path) -> None:
    entry = CatalogEntry(id="pi-tool", name="pi-tool", version="1.0.0", ecosystem="pi",
                         root=str(tmp_path / "pkg"), runtime="node-sidecar")  # fmt: skip
    policy = policy_for_entry(entry, set(), home=tmp_path / "home", workspace=tmp_path).policy
    assert tmp_path in policy.read and not policy.network.any


def test_only_granted_permissions_widen_a_nanobot_package(tmp_path: Path) -> None:
    entry = CatalogEntry(id="acme.review", name="acme.review", version="1", ecosystem="nanobot",
                         root=str(tmp_path / "pkg"), runtime="python-sidecar",
                         permissions=[Permission("network.http", "fetch"),
                                      Permission("workspace.write", "edit")])  # fmt: skip
    home = tmp_path / "home"
    requested_only = policy_for_entry(entry, set(), home=home, workspace=tmp_path).policy
    assert not requested_only.network.any and tmp_path not in requested_only.write
    granted = policy_for_entry(entry, {"network.http", "workspace.write"}, home=home,
                               workspace=tmp_path).policy  # fmt: skip
    assert granted.network.any and tmp_path in granted.write


def test_a_nimlet_package_gets_what_its_tools_declare(tmp_path: Path) -> None:
    tool = Contribution(kind="tool", name="save", detail={"capabilities": ["read", "write"]})
    entry = CatalogEntry(id="notes", name="notes", version="", ecosystem="nimlet",
                         root=str(tmp_path / "pkg"), runtime="nimlet-tool", contributions=[tool])  # fmt: skip
    policy = policy_for_entry(entry, set(), home=tmp_path / "home", workspace=tmp_path).policy
    assert tmp_path in policy.write and not policy.network.any


def test_the_system_part_names_no_private_folder() -> None:
    policy = system_policy()
    allowed = {*policy.read, *policy.execute, *policy.write}
    for private in ("/etc", "/etc/shadow", "/tmp", "/home", "/root", "/dev/shm", "/run", "/var"):
        assert Path(private) not in allowed, private
    assert Path("/usr") in policy.execute and Path("/proc") in policy.read


def test_a_workspace_holding_the_gateway_home_is_reported_as_exposing_it(tmp_path: Path) -> None:
    home = tmp_path / ".gateway"
    home.mkdir()
    sandbox = package_sandbox(home=home, package_id="p", package_root=None,
                              workspace=tmp_path, grants=PackageGrants())  # fmt: skip
    assert exposed_paths(sandbox.policy, [home / "state.sqlite3", tmp_path / "elsewhere"]) == [
        home / "state.sqlite3",
        tmp_path / "elsewhere",
    ]
    away = package_sandbox(home=home, package_id="p", package_root=None,
                           workspace=tmp_path / "ws", grants=PackageGrants())  # fmt: skip
    assert exposed_paths(away.policy, [home / "state.sqlite3"]) == []


def test_exposure_is_judged_on_resolved_paths(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    policy = SandboxPolicy(read=(tmp_path / "alias",))
    assert exposed_paths(policy, [tmp_path / "real" / "secret"]) == [tmp_path / "real" / "secret"]


def test_exposure_is_by_folder_not_by_a_shared_prefix(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    policy = SandboxPolicy(read=(tmp_path / "work",))
    work, sibling = tmp_path / "work", tmp_path / "workspace" / "secret"
    assert exposed_paths(policy, [sibling, work / "secret", work]) == [work / "secret", work]
    assert exposed_paths(SandboxPolicy(read=(Path("/"),)), [sibling]) == [sibling]


def test_the_python_runtime_is_its_prefixes_not_the_home() -> None:
    runtime = python_runtime_paths()
    assert runtime and Path.home() not in runtime


def test_relative_paths_and_bad_ports_are_refused() -> None:
    with pytest.raises(ValueError, match="not absolute"):
        SandboxPolicy(read=(Path("relative"),))
    with pytest.raises(ValueError, match=r"0\.\.65535"):
        NetworkAccess(connect=frozenset({70000}))


def test_the_summary_is_one_line_naming_writes_and_network(tmp_path: Path) -> None:
    policy = system_policy().allowing(write=[tmp_path])
    line = policy.summary()
    assert "\n" not in line and "/dev/null" not in line
    assert line == f"write {tmp_path}; no network; scoped signals and abstract sockets"
