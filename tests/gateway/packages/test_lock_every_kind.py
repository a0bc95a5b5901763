"""A home holding every kind of package — nimlet, Nu, nanobot, Pi, OpenClaw, Agent Plugins,
Claude Code — from every source — a folder, a git repository, the npm registry, a PyPI-style
sdist tarball — locked, and synced into an empty home; ``outdated`` settled right after
install and right after ``update``.

One home, built once for the module (installing seven packages, then each twice more by
sync, is most of its time): the tests read it in the order written, and the last one
updates it. npm is the real client against a registry on the loopback address."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gateway.cli import _output, main
from tests.gateway.packages._helpers import REPO, git, recorded
from tests.gateway.packages._registry import Registry, serving, tarball

EXAMPLES = REPO / "examples" / "packages"
CLAUDE_NPM, CLAUDE_ID = "claude-lock-every-kind", "lock-every-kind"
PI_NPM = "pi-lock-every-kind"
NANOBOT_SDIST = "acme_review-1.0.0.tar.gz"

NIMLET_SCRIPT = "#!/bin/sh\nexit 0\n"
PI_FILES = {"package.json": {"pi": {"extensions": ["./index.ts"]}},
            "index.ts": "export default () => {}\n"}  # fmt: skip


def _claude_files(description: str = "locked") -> dict[str, Any]:
    """A Claude Code plugin whose plugin.json says 1.1.0 and its name another than npm's."""
    return {
        "package.json": {"description": "a Claude Code plugin published on npm"},
        ".claude-plugin/plugin.json": {"name": CLAUDE_ID, "version": "1.1.0",
                                       "description": description},
        "commands/hello.md": "---\ndescription: say hello\n---\nSay hello.\n",
    }  # fmt: skip


@dataclass
class World:
    root: Path
    registry: Registry
    one: Path  # the home everything was installed into
    two: Path  # an empty home synced from one's lockfile
    lockfile: Path
    nu_source: Path
    installed: dict[str, Any]
    synced: dict[str, Any]


def gateway(home: Path, *args: str, code: int | None = 0) -> Any:
    """``gateway ARGS --json`` in this process (a subprocess per verb would double the
    module's time), with its home and an empty user home beside it."""
    user = home.parent / "user"
    user.mkdir(parents=True, exist_ok=True)
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("GATEWAY_")]:
            patch.delenv(name)
        patch.setenv("GATEWAY_HOME", str(home))
        patch.setenv("HOME", str(user))
        patch.chdir(user)
        patch.setattr(_output.print_json, "__defaults__", (out,))
        patch.setattr(_output.print_diagnostics, "__defaults__", (err,))
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            returned = main([*args, "--json"])
    assert "Traceback" not in err.getvalue()
    if code is not None:
        assert returned == code, (args, out.getvalue(), err.getvalue())
    return json.loads(out.getvalue())


def _sources(root: Path, registry: Registry) -> list[tuple[str, str]]:
    """(source, kind) of one package of each format."""
    nimlet = root / "src" / "nim-versionless"
    nimlet.mkdir(parents=True)
    (nimlet / "extension.json").write_text(json.dumps({"name": "nim-versionless",
                                                       "command": ["./run.sh"]}))  # fmt: skip
    (nimlet / "run.sh").write_text(NIMLET_SCRIPT)
    (nimlet / "run.sh").chmod(0o755)
    nu = shutil.copytree(EXAMPLES / "nu-changelog", root / "src" / "nu-changelog")
    plugins = shutil.copytree(EXAMPLES / "glossary", root / "src" / "glossary")
    openclaw = shutil.copytree(EXAMPLES / "house-style", root / "src" / "house-style")
    git(openclaw, "init", "-q")
    git(openclaw, "add", "-A")
    git(openclaw, "commit", "-q", "-m", "house style")
    # A PyPI sdist: one top folder NAME-VERSION/ (pip download --no-binary :all:).
    nanobot = EXAMPLES / "acme-review"
    files = {str(p.relative_to(nanobot)): p.read_text() for p in nanobot.rglob("*") if p.is_file()}
    sdist = root / "src" / NANOBOT_SDIST
    sdist.write_bytes(tarball(files, top="acme_review-1.0.0"))
    registry.publish(PI_NPM, "2.0.0", PI_FILES)
    registry.publish(CLAUDE_NPM, "1.4.0", _claude_files())
    return [
        (str(nimlet), "local"), (str(nu), "local"), (str(plugins), "local"),
        (str(openclaw), "git"), (str(sdist), "npm"), (PI_NPM, "npm"),
        (f"{CLAUDE_NPM}@^1.4.0", "npm"),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("every-kind")
    with serving(Registry()) as registry:
        one, two = root / "one", root / "two"
        registry.write_npmrc(one)
        registry.write_npmrc(two)
        installed = {}
        for source, kind in _sources(root, registry):
            report = gateway(one, "install", source, "--kind", kind)
            installed[report["id"]] = report
        gateway(one, "trust", *installed)
        gateway(one, "enable", *installed)
        gateway(one, "permissions", "acme.review", "workspace.read")
        lockfile = root / "gateway.lock"
        gateway(one, "lock", "--out", str(lockfile))
        synced = gateway(two, "sync", "--lockfile", str(lockfile), "--accept")
        yield World(root, registry, one, two, lockfile, root / "src" / "nu-changelog",
                    installed, synced)  # fmt: skip


def _state(home: Path) -> list[tuple[Any, ...]]:
    return [
        (p.id, p.record.version, p.record.ecosystem, p.record.content_hash, sorted(p.granted),
         p.trusted_for(p.record.content_hash), p.enabled)
        for p in recorded(home)
    ]  # fmt: skip


def _locked(world: World) -> dict[str, Any]:
    return {p["id"]: p for p in json.loads(world.lockfile.read_text())["packages"]}


def test_the_home_holds_every_format(world: World) -> None:
    ecosystems = {p.record.ecosystem for p in recorded(world.one)}
    assert ecosystems == {"nimlet", "nu", "nanobot", "pi", "openclaw", "agent-plugins", "claude"}


def test_a_package_without_a_version_is_pinned_by_its_content(world: World) -> None:
    nimlet = _locked(world)["nim-versionless"]
    assert nimlet["version"] is None
    assert nimlet["integrity"].startswith("sha256:")


def test_an_npm_package_is_pinned_at_the_version_npm_published(world: World) -> None:
    claude = _locked(world)[CLAUDE_ID]
    assert claude["version"] == "1.1.0"  # its plugin.json's
    assert claude["source"]["version"] == "1.4.0"  # npm's, which sync asks for
    assert claude["source"]["integrity"].startswith("sha512-")


def test_sync_reproduces_every_kind_in_an_empty_home(world: World) -> None:
    assert sorted(world.synced["installed"]) == sorted(world.installed)
    assert world.synced["differences"] == []
    assert _state(world.two) == _state(world.one)


def test_the_synced_home_matches_its_lockfile_exactly(world: World) -> None:
    again = gateway(world.two, "sync", "--lockfile", str(world.lockfile), "--frozen")
    assert sorted(again["unchanged"]) == sorted(world.installed)
    assert (again["installed"], again["differences"]) == ([], [])


def test_the_name_typed_at_install_resolves_in_the_synced_home(world: World) -> None:
    """The npm name a person typed installs as the plugin's own id; both name it."""
    done = gateway(world.two, "untrust", CLAUDE_NPM)
    assert (done["changed"], done["id"]) == ("package", CLAUDE_ID)
    gateway(world.two, "trust", CLAUDE_NPM)
    assert {p.id: p.trusted for p in recorded(world.two)}[CLAUDE_ID]


def test_outdated_is_empty_right_after_install(world: World) -> None:
    checks = gateway(world.one, "outdated")["packages"]
    assert sorted(c["id"] for c in checks) == sorted(world.installed)
    assert [c["id"] for c in checks if c["outdated"]] == []
    (claude,) = [c for c in checks if c["id"] == CLAUDE_ID]
    assert claude["current"] == "1.4.0"  # compared as npm's version, not plugin.json's


def test_outdated_is_empty_right_after_update(world: World) -> None:
    """Last: it changes the home. A new npm version (plugin.json still 1.1.0) and a change
    in the Nu package's folder are seen, updated, and then current."""
    world.registry.publish(CLAUDE_NPM, "1.5.0", _claude_files("updated"))
    notes = world.nu_source / "skills" / "changelog" / "SKILL.md"
    notes.write_text(notes.read_text() + "\nOne more line.\n")
    before = {c["id"]: c for c in gateway(world.one, "outdated")["packages"]}
    assert sorted(i for i, c in before.items() if c["outdated"]) == [CLAUDE_ID, "nu-changelog"]
    assert before[CLAUDE_ID]["available"] == "1.5.0"
    updated = gateway(world.one, "update")["packages"]
    assert sorted(u["id"] for u in updated if u["updated"]) == [CLAUDE_ID, "nu-changelog"]
    after = gateway(world.one, "outdated")["packages"]
    assert [c["id"] for c in after if c["outdated"]] == []
