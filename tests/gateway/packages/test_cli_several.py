"""Package verbs given several ids: every id is checked first, then all are changed, or,
when one is unknown, none is (one line naming it, exit 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli_runner import cli
from tests._prepared import restore, set_aside
from tests.gateway.packages._helpers import nanobot, pi, recorded

PERMISSION = "workspace.read"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two nanobot packages (``one``, ``two``, each requesting workspace.read) and a Pi one
    installed by the command line (the Pi one compiled at install), with their sources and
    the user home beside: set aside once, made again for each test."""
    world = tmp_path_factory.mktemp("several") / "world"
    home = world / "home"
    for name in ("one", "two"):
        source = nanobot(world / name, name, permissions=[PERMISSION])
        assert cli(home, "install", str(source)).returncode == 0
    assert cli(home, "install", str(pi(world / "pi", "pi-three"))).returncode == 0
    return set_aside(world)


@pytest.fixture
def home(prepared: Path) -> Path:
    """The prepared home as it was right after the three installs, at the same path."""
    return restore(prepared) / "home"


def state(run_cli, home: Path) -> dict[str, dict[str, object]]:
    done = run_cli(home, "status", "--json")
    return {
        p["id"]: {**p["gates"], "granted": p["granted_permissions"]}
        for p in json.loads(done.stdout)["packages"]
    }


@pytest.mark.parametrize(("verb", "gate"), [("enable", "enabled"), ("trust", "trusted")])
def test_several_ids_are_all_changed(home: Path, run_cli, verb: str, gate: str) -> None:
    done = run_cli(home, verb, "one", "two")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if not line.startswith("  sandbox:")]
    assert len(said) == 2, done.stdout  # one line per id (trust adds each one's sandbox)
    gates = state(run_cli, home)
    assert (gates["one"][gate], gates["two"][gate], gates["pi-three"][gate]) == (True, True, False)


@pytest.mark.parametrize(
    "verb", [["enable"], ["disable"], ["trust"], ["untrust"], ["uninstall"], ["permissions"]]
)
def test_one_unknown_id_changes_nothing_and_names_it_on_one_line(
    home: Path, run_cli, verb: list[str]
) -> None:
    before = state(run_cli, home)
    grant = ["--grant", PERMISSION] if verb == ["permissions"] else []
    done = run_cli(home, *verb, "one", "no.such.pkg", "two", *grant)
    assert (done.returncode, done.stdout) == (1, "")
    (line,) = done.stderr.splitlines()
    assert "no.such.pkg" in line and "nothing was changed" in line
    assert line.endswith("[package.unknown]") and "'one'" not in line
    assert state(run_cli, home) == before
    assert len(recorded(home)) == 3


def test_json_prints_one_object_per_id_in_the_order_given(home: Path, run_cli) -> None:
    done = run_cli(home, "disable", "two", "one", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        {"changed": "package", "id": "two", "enabled": False},
        {"changed": "package", "id": "one", "enabled": False},
    ]


def test_one_id_still_prints_one_object(home: Path, run_cli) -> None:
    done = run_cli(home, "enable", "one", "--json")
    assert json.loads(done.stdout) == {"changed": "package", "id": "one", "enabled": True}


def test_uninstall_removes_every_package_named(home: Path, run_cli) -> None:
    done = run_cli(home, "uninstall", "one", "pi-three", "--json")
    assert done.returncode == 0, done.stderr
    assert [entry["uninstalled"] for entry in json.loads(done.stdout)] == ["one", "pi-three"]
    assert [p.id for p in recorded(home)] == ["two"]


def test_permissions_grant_names_several_ids(home: Path, run_cli) -> None:
    done = run_cli(home, "permissions", "one", "two", "--grant", PERMISSION, "--json")
    assert done.returncode == 0, done.stderr
    assert [(r["id"], r["granted"]) for r in json.loads(done.stdout)] == [
        ("one", [PERMISSION]),
        ("two", [PERMISSION]),
    ]
    revoked = run_cli(home, "permissions", "one", "two", "--revoke", PERMISSION, "--json")
    assert [r["granted"] for r in json.loads(revoked.stdout)] == [[], []]


def test_permissions_one_id_then_its_permissions_still_grants(home: Path, run_cli) -> None:
    done = run_cli(home, "permissions", "one", PERMISSION, "--json")
    assert json.loads(done.stdout)["granted"] == [PERMISSION]
    bare = run_cli(home, "permissions", "one", PERMISSION, "--revoke", "--json")
    assert json.loads(bare.stdout)["granted"] == []


def test_a_permission_one_id_may_not_get_grants_none(home: Path, run_cli) -> None:
    # The Pi package may be granted network; nanobot `one` declares its needs: not without --widen.
    done = run_cli(home, "permissions", "pi-three", "one", "--grant", "network")
    assert done.returncode == 1
    assert "one does not request network" in done.stderr
    assert state(run_cli, home)["pi-three"]["granted"] == []


def test_grant_and_revoke_together_are_bad_usage(home: Path, run_cli) -> None:
    done = run_cli(home, "permissions", "one", "--grant", PERMISSION, "--revoke", PERMISSION)
    assert done.returncode == 2


def test_trust_takes_packages_and_folders_together(home: Path, run_cli, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    done = run_cli(home, "trust", "one", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    assert [r["changed"] for r in json.loads(done.stdout)] == ["package", "workspace"]


def test_a_missing_path_among_trust_targets_is_bad_usage(
    home: Path, run_cli, tmp_path: Path
) -> None:
    done = run_cli(home, "trust", "one", str(tmp_path / "missing"))
    assert done.returncode == 2
    assert state(run_cli, home)["one"]["trusted"] is False


def test_list_packages_shows_each_installed_package_and_whether_it_is_active(
    home: Path, run_cli
) -> None:
    listed = run_cli(home, "list", "--packages", "--json")
    assert listed.returncode == 0, listed.stderr
    packages = json.loads(listed.stdout)["packages"]
    assert [(p["id"], p["version"], p["ecosystem"], p["active"]) for p in packages] == [
        ("one", "1.0.0", "nanobot", False),
        ("pi-three", "1.0.0", "pi", False),
        ("two", "1.0.0", "nanobot", False),
    ]
    assert "disabled" in packages[0]["reasons"]
    human = run_cli(home, "list", "--packages")
    lines = human.stdout.splitlines()
    assert lines[:2] == ["Packages (3)", "  ID        VERSION  ECOSYSTEM  STATE"]
    assert lines[2].split()[:4] == ["one", "1.0.0", "nanobot", "inactive:"]


def test_list_packages_of_an_empty_home_is_an_empty_table(tmp_path: Path, run_cli) -> None:
    done = run_cli(tmp_path / "empty", "list", "--packages")
    assert (done.returncode, done.stdout) == (0, "Packages (0)\n  (none)\n")


def test_trust_of_several_ids_reads_only_those_packages(
    home: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each trusted package is inspected once, alone: never every package once per id."""
    from gateway.packages import _adapters

    inspected: list[str] = []
    inspect = _adapters.load_adapters().inspect

    def counting(root: Path):  # type: ignore[no-untyped-def]
        entry = inspect(root)
        inspected.append(entry.id)
        return entry

    adapters = _adapters.load_adapters()
    monkeypatch.setattr(adapters, "inspect", counting)
    monkeypatch.setattr(_adapters, "load_adapters", lambda: adapters)
    done = run_cli(home, "trust", "one", "two")
    assert done.returncode == 0, done.stderr
    assert sorted(inspected) == ["one", "two"]


def test_trust_covers_the_content_on_disk_now(home: Path, run_cli) -> None:
    """Files changed after install: trust is given for them, not for the recorded hash
    (which the next status would find stale, and revoke)."""
    (one,) = [p for p in recorded(home) if p.id == "one"]
    (one.record.path / "added.txt").write_text("changed after install\n")
    done = run_cli(home, "trust", "one", "--json")
    assert json.loads(done.stdout)["trusted"] is True
    assert state(run_cli, home)["one"]["trusted"] is True
