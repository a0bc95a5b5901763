"""The package verbs of the `gateway` command line: in this process (``run_cli``) for most
checks, and as a real subprocess where the process boundary matters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gateway.packages._helpers import cli, dependency, nanobot, recorded

PACKAGE = "cli.pkg"
PERMISSION = "workspace.read"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return nanobot(
        tmp_path / "src",
        PACKAGE,
        permissions=[PERMISSION],
        dependencies=[dependency("executable", "git", optional=True)],
        files={"data.txt": "one"},
    )


@pytest.fixture
def gw(run_cli):
    """``gw(home, *args)`` runs the CLI; ``gw.json(home, *args, code=0)`` parses --json."""

    class Runner:
        def __call__(self, home: Path, *args: str):
            return run_cli(home, *args)

        def json(self, home: Path, *args: str, code: int = 0):
            done = run_cli(home, *args, "--json")
            assert done.returncode == code, (done.stdout, done.stderr)
            return json.loads(done.stdout)

        def status(self, home: Path) -> dict:
            (package,) = self.json(home, "status")["packages"]
            return package

    return Runner()


@pytest.fixture
def home(tmp_path: Path, source: Path, gw) -> Path:
    """A home with the package installed through the CLI."""
    home = tmp_path / "home"
    gw.json(home, "install", str(source))
    return home


def test_install_json_reports_the_package_and_the_gates_to_pass(
    tmp_path: Path, source: Path, gw
) -> None:
    home = tmp_path / "home"
    done = cli(home, "install", str(source), "--json")  # a real process, end to end
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["id"], report["version"], report["ecosystem"]) == (PACKAGE, "1.0.0", "nanobot")
    assert (report["source_kind"], report["source"]) == ("local", str(source))
    assert (report["created"], report["trusted"], report["enabled"], report["granted"]) == (
        True,
        False,
        False,
        [],
    )
    assert report["requested_permissions"] == [PERMISSION]
    assert Path(report["path"]).is_dir() and report["files"] == 2
    human = gw(home, "install", str(source))  # the same content again
    assert human.returncode == 0, human.stderr
    assert human.stdout.startswith(f"reinstalled {PACKAGE} 1.0.0 (nanobot)")
    assert "same content as before" in human.stdout


def test_status_json_shows_each_gate_and_the_reasons(home: Path, gw) -> None:
    package = gw.status(home)
    assert package["gates"] == {
        "installed": True,
        "trusted": False,
        "permissions": False,
        "dependencies": True,
        "enabled": False,
    }
    assert package["active"] is False
    assert package["reasons"] == [
        "not trusted",
        f"permissions not granted: {PERMISSION}",
        "disabled",
    ]
    assert [d["code"] for d in package["diagnostics"]] == [
        "gate.untrusted",
        "gate.permission_missing",
        "gate.disabled",
    ]
    human = gw(home, "status")
    assert human.returncode == 0
    assert "trusted:NO permissions:NO dependencies:yes enabled:NO" in human.stdout


def test_status_after_editing_an_installed_package_says_trust_was_revoked(home: Path, gw) -> None:
    gw.json(home, "trust", PACKAGE)
    assert gw.status(home)["gates"]["trusted"] is True
    (Path(gw.status(home)["path"]) / "data.txt").write_text("two")
    package = gw.status(home)
    assert package["gates"]["trusted"] is False
    assert [d["code"] for d in package["diagnostics"]][:2] == [
        "gate.content_changed",
        "gate.untrusted",
    ]


def test_inspect_reads_an_uninstalled_folder_and_an_installed_id(
    tmp_path: Path, source: Path, gw
) -> None:
    home = tmp_path / "home"
    entry = gw.json(home, "inspect", str(source))
    assert (entry["id"], entry["ecosystem"], entry["root"]) == (PACKAGE, "nanobot", str(source))
    assert [(p["name"], p["reason"]) for p in entry["permissions"]] == [
        (PERMISSION, f"the tests need {PERMISSION}")
    ]
    assert recorded(home) == []  # inspecting installs nothing
    human = gw(home, "inspect", str(source))
    assert human.returncode == 0, human.stderr
    assert "Permissions requested (1)" in human.stdout and PERMISSION in human.stdout
    assert "Dependencies (1)" in human.stdout
    installed = gw.json(home, "install", str(source))
    entry = gw.json(home, "inspect", PACKAGE)
    assert entry["root"] == installed["path"] != str(source)


def test_permissions_grant_and_revoke_only_requested_ones(home: Path, gw) -> None:
    assert gw.json(home, "permissions", PACKAGE) == {
        "id": PACKAGE,
        "requested": [PERMISSION],
        "granted": [],
    }
    assert gw.json(home, "permissions", PACKAGE, PERMISSION)["granted"] == [PERMISSION]
    assert gw.status(home)["gates"]["permissions"] is True
    refused = gw(home, "permissions", PACKAGE, "network.fetch")
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"gateway: error: {PACKAGE} does not request network.fetch; it requests: {PERMISSION} "
        "(any package may be granted workspace.write, network, hooks.rewrite, env:NAME, "
        "network:HOST[:PORT], workspace.write:PATH)"
    ]
    assert gw.json(home, "permissions", PACKAGE)["granted"] == [PERMISSION]
    revoked = gw.json(home, "permissions", PACKAGE, PERMISSION, "--revoke")
    assert revoked["granted"] == []
    assert gw.status(home)["gates"]["permissions"] is False


def test_trust_says_whether_it_changed_a_package_or_a_workspace(
    home: Path, tmp_path: Path, gw
) -> None:
    trusted = gw.json(home, "trust", PACKAGE)
    assert (trusted["changed"], trusted["id"], trusted["trusted"]) == ("package", PACKAGE, True)
    assert gw.status(home)["gates"]["trusted"] is True
    human = gw(home, "untrust", PACKAGE)
    assert human.stdout.startswith(f"package {PACKAGE} is no longer trusted")
    assert gw.status(home)["gates"]["trusted"] is False
    folder = tmp_path / "project"
    folder.mkdir()
    workspace = gw.json(home, "trust", str(folder))
    assert workspace == {"changed": "workspace", "workspace": str(folder), "trusted": True}
    human = gw(home, "trust", str(folder))
    assert human.stdout == f"workspace {folder} is trusted\n"
    assert gw.status(home)["gates"]["trusted"] is False  # the package was not touched


def test_enable_and_disable_switch_the_enabled_gate(home: Path, gw) -> None:
    assert gw.json(home, "enable", PACKAGE) == {
        "changed": "package",
        "id": PACKAGE,
        "enabled": True,
    }
    assert gw.status(home)["gates"]["enabled"] is True
    human = gw(home, "disable", PACKAGE)
    assert human.stdout == f"package {PACKAGE} is disabled\n"
    assert gw.status(home)["gates"]["enabled"] is False


def test_all_gates_passed_on_the_cli_leaves_only_the_runtime(home: Path, gw) -> None:
    for verb in (("permissions", PACKAGE, PERMISSION), ("trust", PACKAGE), ("enable", PACKAGE)):
        assert gw(home, *verb).returncode == 0
    package = gw.status(home)
    assert all(package["gates"].values())
    assert package["active"] is False
    assert [d["code"] for d in package["diagnostics"]] == ["runtime.unavailable"]


def test_uninstall_removes_the_record_and_the_files(home: Path, gw) -> None:
    path = Path(gw.status(home)["path"])
    result = gw.json(home, "uninstall", PACKAGE)
    assert result == {"uninstalled": PACKAGE, "path": str(path)}
    assert not path.exists() and not path.parent.exists()
    assert gw.json(home, "status") == {"packages": [], "preferred": []}


@pytest.mark.parametrize(
    "verb",
    [
        "inspect",
        "permissions",
        "enable",
        "disable",
        "uninstall",
        "trust",
    ],
)
def test_unknown_package_id_is_a_one_line_error_with_exit_1(home: Path, verb: str, gw) -> None:
    done = gw(home, verb, "no.such.pkg")
    assert done.returncode == 1
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("gateway: error: ") and "no.such.pkg" in line
    assert line.endswith("[package.unknown]")
    assert [p.id for p in recorded(home)] == [PACKAGE]


def test_unknown_package_id_with_json_is_an_error_object(home: Path, gw) -> None:
    done = cli(home, "enable", "no.such.pkg", "--json")  # a real process: no traceback
    assert (done.returncode, done.stderr) == (1, "")
    result = json.loads(done.stdout)
    assert "no.such.pkg" in result["error"]
    assert [d["code"] for d in result["diagnostics"]] == ["package.unknown"]


def test_a_sandbox_permission_a_nanobot_package_did_not_request_needs_widen(home: Path, gw) -> None:
    refused = gw(home, "permissions", PACKAGE, "workspace.write")
    assert refused.returncode == 1
    assert "does not request workspace.write" in refused.stderr
    assert f"gateway permissions {PACKAGE} workspace.write --widen" in refused.stderr
    assert gw.json(home, "permissions", PACKAGE)["granted"] == []
    widened = gw(home, "permissions", PACKAGE, "workspace.write", "--widen")
    assert widened.returncode == 0, widened.stderr
    assert "widened cli.pkg's sandbox: the workspace becomes writable" in widened.stdout
    assert gw.json(home, "permissions", PACKAGE)["granted"] == ["workspace.write"]


def test_a_discovered_extension_is_granted_by_its_own_id(home: Path, gw) -> None:
    assert gw.json(home, "permissions", "pi:notes.ts", "network")["granted"] == ["network"]
    assert gw.json(home, "permissions", "pi:notes.ts")["granted"] == ["network"]
    refused = gw(home, "permissions", "pi:notes.ts", "conversation_access")
    assert refused.returncode == 1
    assert "discovered extension" in refused.stderr
    assert gw.json(home, "permissions", "pi:notes.ts", "network", "--revoke")["granted"] == []


def test_group_and_ungroup_say_who_may_share_a_process(home: Path, gw) -> None:
    assert gw.json(home, "group", "team", PACKAGE)["group"] == "team"
    assert gw.status(home)["group"] == "team"
    shown = gw(home, "status")
    assert "team" in shown.stdout
    assert gw.json(home, "ungroup", PACKAGE)["group"] is None
    assert gw.status(home)["group"] is None
    unknown = gw(home, "group", "team", PACKAGE, "no.such.package")
    assert unknown.returncode == 1
    assert gw.status(home)["group"] is None  # all or none
