"""``gateway lock`` and ``gateway sync``: a home written down, and reproduced from the
lockfile in another — real store, real installs from folders and a packed npm tarball."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from gateway.store import StateStore
from tests.gateway.packages._helpers import (
    REPO,
    git,
    install_from,
    make_ready,
    nanobot,
    nimlet,
    recorded,
)

PERMISSION = "workspace.read"
TARBALL = REPO / "tests" / "fixtures" / "npm" / "pi-aliases-1.0.7.tgz"


@pytest.fixture
def gw(run_cli):
    def run(home: Path, *args: str, code: int | None = None) -> Any:
        done = run_cli(home, *args)
        assert "Traceback" not in done.stderr
        if code is not None:
            assert done.returncode == code, (done.stdout, done.stderr)
        return done

    return run


def _json(gw, home: Path, *args: str, code: int = 0) -> Any:
    return json.loads(gw(home, *args, "--json", code=code).stdout)


def _state(home: Path) -> list[tuple[Any, ...]]:
    """What a lockfile reproduces, per package."""
    return [
        (p.id, p.record.version, p.record.content_hash, sorted(p.granted),
         p.trusted_for(p.record.content_hash), p.enabled, p.process_group)
        for p in recorded(home)
    ]  # fmt: skip


@pytest.fixture
def source_home(tmp_path: Path) -> Path:
    """Two packages with every decision made: a folder (nanobot) and an npm tarball (Pi)."""
    home = tmp_path / "one"
    folder = nanobot(tmp_path / "src", "lock.demo", permissions=[PERMISSION], files={"a": "1"})
    install_from(home, folder)
    install_from(home, TARBALL, kind="npm")
    make_ready(home, "lock.demo")
    with StateStore.open(home) as store:
        store.grant(
            "pi-aliases", ["env:LOCK_TEST_VAR", "network"], ["env:LOCK_TEST_VAR", "network"]
        )
        store.set_enabled("pi-aliases", True)
        store.set_group(["lock.demo"], "team")
    return home


@pytest.fixture
def lockfile(source_home: Path, gw, tmp_path: Path) -> Path:
    path = tmp_path / "gateway.lock"
    gw(source_home, "lock", "--out", str(path), code=0)
    return path


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


# --------------------------------------------------------------------------- lock


def test_lock_records_every_package_with_source_integrity_and_decisions(
    lockfile: Path, source_home: Path
) -> None:
    data = json.loads(lockfile.read_text())
    assert data["lockfile"] == 1 and set(data["host"]) == {"platform", "python", "node"}
    packages = {p["id"]: p for p in data["packages"]}
    demo, aliases = packages["lock.demo"], packages["pi-aliases"]
    assert demo["source"] == {"kind": "local", "path": str(source_home.parent / "src")}
    digest = base64.b64encode(hashlib.sha512(TARBALL.read_bytes()).digest()).decode()
    assert aliases["source"] == {
        "kind": "npm", "spec": str(TARBALL), "tarball": TARBALL.name,
        "integrity": f"sha512-{digest}",  # npm's dist.integrity of that tarball
        "version": "1.0.7",  # the version npm published (its package.json)
    }  # fmt: skip
    assert (demo["trusted"], demo["enabled"], demo["grants"]) == (True, True, [PERMISSION])
    assert demo["process_group"] == "team"
    assert aliases["grants"] == ["env:LOCK_TEST_VAR", "network"]
    assert {p.id: p.record.content_hash for p in recorded(source_home)} == {
        i: p["integrity"] for i, p in packages.items()
    }


def test_lock_output_is_sorted_and_the_same_on_every_run(
    lockfile: Path, source_home: Path, gw
) -> None:
    again = lockfile.with_name("again.lock")
    gw(source_home, "lock", "--out", str(again), code=0)
    assert again.read_bytes() == lockfile.read_bytes()
    ids = [p["id"] for p in json.loads(lockfile.read_text())["packages"]]
    assert ids == sorted(ids)


def test_lock_is_written_to_the_current_folder_by_default(source_home: Path, gw) -> None:
    written = _json(gw, source_home, "lock")
    assert Path(written["lockfile"]) == source_home.parent / "user" / "gateway.lock"
    assert Path(written["lockfile"]).is_file()


def test_lock_says_a_package_without_a_version_once_with_its_source(tmp_path: Path, gw) -> None:
    """Each line is `ID VERSION (KIND)`; one without a version said `(no version: pinned by
    content) (local)`, two parentheses one after the other."""
    home = tmp_path / "home"
    install_from(home, nimlet(tmp_path / "ext", "unversioned", tmp_path / "marker"))
    shown = gw(home, "lock", "--out", str(tmp_path / "gateway.lock"), code=0).stdout
    assert "  unversioned (local; no version: pinned by content)\n" in shown, shown


def test_lock_records_the_config_digest_never_its_content(
    source_home: Path, gw, tmp_path: Path
) -> None:
    gw(source_home, "config", "lock.demo", "apiKey", "sk-very-secret", code=0)
    path = tmp_path / "with-config.lock"
    gw(source_home, "lock", "--out", str(path), code=0)
    text = path.read_text()
    assert "sk-very-secret" not in text and "apiKey" not in text
    digest = {p["id"]: p["config_digest"] for p in json.loads(text)["packages"]}["lock.demo"]
    assert digest.startswith("sha256:")


def test_lock_into_a_folder_is_a_diagnostic(source_home: Path, gw, tmp_path: Path) -> None:
    done = _json(gw, source_home, "lock", "--out", str(tmp_path), code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.write_failed"]


# --------------------------------------------------------------------------- sync


def test_sync_accept_reproduces_the_set_in_an_empty_home(
    lockfile: Path, source_home: Path, gw, tmp_path: Path
) -> None:
    home = tmp_path / "two"
    report = _json(gw, home, "sync", "--lockfile", str(lockfile), "--accept")
    assert sorted(report["installed"]) == ["lock.demo", "pi-aliases"]
    assert report["differences"] == []
    assert _state(home) == _state(source_home)


def test_sync_accept_says_the_decisions_it_applied_as_done_not_as_commands(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    home = tmp_path / "two"
    done = gw(home, "sync", "--lockfile", str(lockfile), "--accept", code=0)
    head = "applied the lockfile's decisions:"
    lines = done.stdout.splitlines()
    applied = lines[lines.index(head) + 1 :]
    assert applied == [
        "  trusted lock.demo",
        "  granted workspace.read to lock.demo",
        "  put lock.demo in group team",
        "  granted env:LOCK_TEST_VAR to pi-aliases",
        "  granted network to pi-aliases",
        "  enabled lock.demo, pi-aliases",
    ], done.stdout
    assert "gateway " not in done.stdout  # nothing that reads as a command still to run
    # --json keeps the decisions as the commands they are.
    again = tmp_path / "three"
    report = _json(gw, again, "sync", "--lockfile", str(lockfile), "--accept")
    assert "trust lock.demo" in report["decisions"]
    assert "permissions pi-aliases network" in report["decisions"]


def test_sync_accept_says_revoked_untrusted_disabled_and_ungrouped(
    lockfile: Path, source_home: Path, gw
) -> None:
    # The home made more than the lockfile says: accepting it takes each back.
    with StateStore.open(source_home) as store:
        store.grant("lock.demo", ["network"], ["network"])
    _edit(lockfile, lambda data: [
        p.update(trusted=False, enabled=False, process_group=None, grants=[])
        for p in data["packages"] if p["id"] == "lock.demo"])  # fmt: skip
    done = gw(source_home, "sync", "--lockfile", str(lockfile), "--accept", code=0)
    for said in ("untrusted lock.demo", "revoked network from lock.demo",
                 f"revoked {PERMISSION} from lock.demo", "ungrouped lock.demo",
                 "disabled lock.demo"):  # fmt: skip
        assert f"  {said}\n" in done.stdout, done.stdout
    assert "gateway " not in done.stdout


def test_sync_without_accept_installs_but_leaves_decisions_unset_and_says_so(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    home = tmp_path / "two"
    done = gw(home, "sync", "--lockfile", str(lockfile), code=0)
    assert [p[0:3] for p in _state(home)] == [p[0:3] for p in _state(lockfile.parent / "one")]
    assert all(p[3:] == ([], False, False, None) for p in _state(home))
    assert "gateway trust lock.demo" in done.stdout
    assert "gateway permissions pi-aliases network" in done.stdout
    # One command per verb for every package, trust first and enable last.
    lines = [line.strip() for line in done.stdout.splitlines() if line.startswith("  gateway ")]
    assert lines[0] == "gateway trust lock.demo", lines  # pi-aliases is locked untrusted
    assert lines[-1] == "gateway enable lock.demo pi-aliases", lines
    assert [line.split()[1] for line in lines].count("enable") == 1
    assert f"gateway sync --accept --lockfile {lockfile}" in done.stdout


def test_sync_without_accept_reports_the_pending_decisions_in_json(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    report = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lockfile))
    assert report["accepted"] is False and "enable lock.demo" in report["decisions"]
    assert "lock.decisions_pending" in [d["code"] for d in report["diagnostics"]]


def test_sync_removes_a_package_not_in_the_lock(lockfile: Path, gw, tmp_path: Path) -> None:
    home = tmp_path / "two"
    install_from(home, nanobot(tmp_path / "extra", "extra.pkg"))
    report = _json(gw, home, "sync", "--lockfile", str(lockfile))
    assert report["removed"] == ["extra.pkg"]
    assert sorted(p.id for p in recorded(home)) == ["lock.demo", "pi-aliases"]


def test_sync_updates_a_package_whose_version_differs(lockfile: Path, gw, tmp_path: Path) -> None:
    home = tmp_path / "two"
    install_from(home, nanobot(tmp_path / "old", "lock.demo", version="0.9.0"))
    report = _json(gw, home, "sync", "--lockfile", str(lockfile))
    assert report["updated"] == ["lock.demo"]
    assert {p.id: p.record.version for p in recorded(home)}["lock.demo"] == "1.0.0"


def test_sync_of_a_matching_home_changes_nothing(lockfile: Path, source_home: Path, gw) -> None:
    before = _state(source_home)
    report = _json(gw, source_home, "sync", "--lockfile", str(lockfile), "--frozen")
    assert sorted(report["unchanged"]) == ["lock.demo", "pi-aliases"]
    assert (report["installed"], report["decisions"]) == ([], [])
    assert _state(source_home) == before


def test_integrity_mismatch_refuses_and_changes_nothing(lockfile: Path, gw, tmp_path: Path) -> None:
    (tmp_path / "src" / "a").write_text("changed after locking")
    home = tmp_path / "two"
    install_from(home, nanobot(tmp_path / "extra", "extra.pkg"))
    before = _state(home)
    done = _json(gw, home, "sync", "--lockfile", str(lockfile), "--accept", code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.integrity_mismatch"]
    assert done["diagnostics"][0]["package"] == "lock.demo"
    assert _state(home) == before


def test_an_npm_tarball_whose_integrity_differs_from_the_locked_one_is_refused(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    forged = "sha512-" + base64.b64encode(hashlib.sha512(b"another tarball").digest()).decode()

    def change(data: dict[str, Any]) -> None:
        (aliases,) = [p for p in data["packages"] if p["id"] == "pi-aliases"]
        aliases["source"]["integrity"] = forged

    _edit(lockfile, change)
    home = tmp_path / "two"
    done = _json(gw, home, "sync", "--lockfile", str(lockfile), "--accept", code=1)
    (said,) = [d for d in done["diagnostics"] if d["package"] == "pi-aliases"]
    assert said["code"] == "lock.integrity_mismatch" and "npm tarball" in said["message"]
    assert recorded(home) == []


def test_a_malformed_npm_integrity_is_a_lockfile_diagnostic(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    def change(data: dict[str, Any]) -> None:
        (aliases,) = [p for p in data["packages"] if p["id"] == "pi-aliases"]
        aliases["source"]["integrity"] = "md5-abc"

    _edit(lockfile, change)
    done = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lockfile), code=1)
    assert "integrity must be npm's sha512" in done["diagnostics"][0]["message"]


def test_missing_local_source_is_a_diagnostic_and_changes_nothing(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    (tmp_path / "src" / "a").unlink()
    (tmp_path / "src" / "nanobot.extension.json").unlink()
    (tmp_path / "src").rmdir()
    done = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lockfile), code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.source_missing"]
    assert str(tmp_path / "src") in done["diagnostics"][0]["message"]
    assert recorded(tmp_path / "two") == []


def test_frozen_fails_when_the_decisions_would_stay_unapplied(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    done = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lockfile), "--frozen", code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.home_differs"]
    assert recorded(tmp_path / "two") == []


def test_frozen_refuses_a_git_source_without_its_commit(gw, tmp_path: Path) -> None:
    lock = tmp_path / "git.lock"
    package = {"id": "g.pkg", "version": "1.0.0", "integrity": "sha256:" + "0" * 64,
               "source": {"kind": "git", "url": "https://example.invalid/g.git", "ref": "main"}}  # fmt: skip
    lock.write_text(json.dumps({"lockfile": 1, "packages": [package]}))
    done = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lock), "--frozen", code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.needs_resolving"]


def test_frozen_with_accept_reproduces_the_home(lockfile: Path, gw, tmp_path: Path) -> None:
    home = tmp_path / "two"
    _json(gw, home, "sync", "--lockfile", str(lockfile), "--frozen", "--accept")
    assert _state(home) == _state(tmp_path / "one")


def test_accept_refuses_a_grant_the_package_does_not_request(
    lockfile: Path, gw, tmp_path: Path
) -> None:
    _edit(lockfile, lambda d: d["packages"][0]["grants"].append("shell.run"))
    done = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lockfile), "--accept", code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.grant_refused"]
    assert recorded(tmp_path / "two") == []


def test_missing_lockfile_is_a_diagnostic(gw, tmp_path: Path) -> None:
    done = gw(tmp_path / "two", "sync", code=1)
    assert "[lock.invalid]" in done.stderr and "gateway.lock" in done.stderr


# --------------------------------------------------------------------------- hostile input


def _package(**fields: Any) -> dict[str, Any]:
    base = {"id": "ok.pkg", "version": "1.0.0", "integrity": "sha256:" + "a" * 64,
            "source": {"kind": "local", "path": "/nowhere"}}  # fmt: skip
    return {**base, **fields}


def _with(*packages: dict[str, Any]) -> str:
    return json.dumps({"lockfile": 1, "packages": list(packages)})


MALFORMED = {
    "not JSON": "{not json",
    "a TOML file": 'lockfile = 1\n[[packages]]\nid = "x"\n',
    "not an object": "[1, 2]",
    "no version": json.dumps({"packages": []}),
    "another version": json.dumps({"lockfile": 2, "packages": []}),
    "packages not a list": json.dumps({"lockfile": 1, "packages": {"a": 1}}),
    "an unknown field": _with(_package(trustd=True)),
    "trusted not a bool": _with(_package(trusted="yes")),
    "grants not a list": _with(_package(grants="network")),
    "a grant not a string": _with(_package(grants=[1])),
    "integrity not a digest": _with(_package(integrity="md5:abc")),
    "id climbing out": _with(_package(id="../../etc/passwd")),
    "id with a slash": _with(_package(id="a/b")),
    "id absolute": _with(_package(id="/etc")),
    "id with NUL": _with(_package(id="a\u0000b")),
    "id with a newline": _with(_package(id="a\nb")),
    "id with bidi control": _with(_package(id="a\u202eb")),
    "id a dot": _with(_package(id="..")),
    "id not a string": _with(_package(id=7)),
    "relative local path": _with(_package(source={"kind": "local", "path": "../x"})),
    "unknown source kind": _with(_package(source={"kind": "svn", "path": "/x"})),
    "git remote helper": _with(_package(source={"kind": "git", "url": "ext::sh -c id"})),
    "git file url": _with(_package(source={"kind": "git", "url": "file:///etc"})),
    "git bad commit": _with(
        _package(source={"kind": "git", "url": "https://e.invalid/x.git", "commit": "HEAD"})
    ),
    "npm option": _with(_package(source={"kind": "npm", "spec": "--registry=evil"})),
    "npm version a range": _with(
        _package(source={"kind": "npm", "spec": "x", "version": "^1.0.0"})
    ),
    "tools not an object": _with(_package(tools=["fetch"])),
    "a tool pin not a digest": _with(_package(tools={"fetch": "md5:abc"})),
    "a tool name with a control character": _with(
        _package(tools={"fe\u0007tch": "sha256:" + "a" * 64})
    ),
    "duplicate ids": _with(_package(), _package()),
    "deep nesting": "[" * 100_000 + "]" * 100_000,
}


@pytest.mark.parametrize("text", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_lockfile_is_a_diagnostic_and_changes_nothing(
    text: str, gw, tmp_path: Path
) -> None:
    home = tmp_path / "two"
    install_from(home, nanobot(tmp_path / "extra", "extra.pkg"))
    lock = tmp_path / "bad.lock"
    lock.write_text(text)
    done = _json(gw, home, "sync", "--lockfile", str(lock), code=1)
    assert [d["code"] for d in done["diagnostics"]] == ["lock.invalid"]
    assert [p.id for p in recorded(home)] == ["extra.pkg"]


def test_a_problem_in_a_package_names_it_by_its_id(gw, tmp_path: Path) -> None:
    lock = tmp_path / "bad.lock"
    lock.write_text(_with(_package(), _package(id="second.pkg", trusted="yes")))
    (said,) = _json(gw, tmp_path / "two", "sync", "--lockfile", str(lock), code=1)["diagnostics"]
    assert said["package"] == "second.pkg"
    assert "packages[1] (second.pkg).trusted must be true or false" in said["message"]


def test_lockfile_that_is_not_utf8_is_a_diagnostic(gw, tmp_path: Path) -> None:
    lock = tmp_path / "bad.lock"
    lock.write_bytes(b'{"lockfile": 1, "packages": ["\xff"]}')
    done = gw(tmp_path / "two", "sync", "--lockfile", str(lock), code=1)
    assert "[lock.invalid]" in done.stderr and "UTF-8" in done.stderr


def test_git_source_is_locked_at_its_commit_and_synced_there(gw, tmp_path: Path) -> None:
    repository = tmp_path / "demo.git"
    repository.mkdir()
    git(repository, "init", "--quiet")
    nanobot(repository, "git.pkg", version="1.0.0")
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "-m", "one")
    commit = git(repository, "rev-parse", "HEAD")
    install_from(tmp_path / "one", f"{repository}#main", kind="git")
    lock = tmp_path / "gateway.lock"
    gw(tmp_path / "one", "lock", "--out", str(lock), code=0)
    source = json.loads(lock.read_text())["packages"][0]["source"]
    assert source == {"kind": "git", "url": str(repository), "ref": "main", "commit": commit}
    nanobot(repository, "git.pkg", version="2.0.0")  # main moves on after the lock
    git(repository, "commit", "--quiet", "-am", "two")
    _json(gw, tmp_path / "two", "sync", "--lockfile", str(lock), "--frozen", "--accept")
    assert _state(tmp_path / "two") == _state(tmp_path / "one")


@pytest.mark.parametrize(
    ("source", "fetched"),
    [
        ({"version": "1.4.0", "tarball": "claude-x-1.4.0.tgz"}, "claude-x@1.4.0"),
        # written before npm's version was recorded: the tarball's name npm gave it says it
        ({"tarball": "claude-x-1.4.0.tgz"}, "claude-x@1.4.0"),
        ({}, "claude-x@1.1.0"),  # nothing else: the package's own
    ],
)
def test_an_npm_package_is_fetched_at_the_version_npm_published(
    source: dict[str, str], fetched: str
) -> None:
    from gateway.packages._lockfile import LockedPackage, LockedSource
    from gateway.packages._sync import _fetch_of

    locked = LockedSource("npm", "claude-x@^1.0.0", None, source.get("tarball"), None,
                          source.get("version"))  # fmt: skip
    package = LockedPackage("x", "x", "claude", "1.1.0", locked, "sha256:" + "0" * 64)
    assert _fetch_of(package).text == fetched  # type: ignore[union-attr]
