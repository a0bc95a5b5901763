"""Install sources: a local folder, a git repository at a ref, an npm tarball or registry
spec — and the sources that are refused before anything is fetched."""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gateway.packages import InstallError, _tools
from tests.gateway.packages._helpers import (
    git,
    install_from,
    nanobot,
    pi,
    recorded,
    staging_leftovers,
    version_folders,
    write_tree,
)
from tests.gateway.packages._registry import tarball as registry_tarball
from tests.sandbox.conftest import needs_landlock

# --------------------------------------------------------------------------- local


def test_local_folder_is_copied_and_recorded(tmp_path: Path) -> None:
    source = nanobot(tmp_path / "src", "local.demo", files={"data/notes.txt": "hello"})
    report = install_from(tmp_path / "home", source, kind=None)  # a folder is detected as local
    record = report.package.record
    assert (record.id, record.version, record.ecosystem) == ("local.demo", "1.0.0", "nanobot")
    assert (record.source_kind, record.source) == ("local", str(source.resolve()))
    assert (record.path / "data/notes.txt").read_text() == "hello"
    assert record.path.is_relative_to(tmp_path / "home" / "packages")
    assert (report.package.trusted, report.package.enabled, report.package.granted) == (
        False,
        False,
        frozenset(),
    )
    assert [p.id for p in recorded(tmp_path / "home")] == ["local.demo"]
    assert staging_leftovers(tmp_path / "home") == []


# --------------------------------------------------------------------------- git


@dataclass
class GitRepository:
    path: Path
    commits: dict[str, str]  # ref name used by the test → commit


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> GitRepository:
    """main: 1.0.0 (tag v1) → 2.0.0 → 3.0.0; branch feature: 1.0.0 → 1.5.0."""
    path = tmp_path_factory.mktemp("git") / "demo.git"  # a work tree named like a git URL
    path.mkdir()
    git(path, "init", "--quiet")

    def commit(version: str) -> str:
        nanobot(path, "git.demo", version=version, files={"which.txt": version})
        git(path, "add", "--all")
        git(path, "commit", "--quiet", "-m", version)
        return git(path, "rev-parse", "HEAD")

    commits = {"v1": commit("1.0.0")}
    git(path, "tag", "--annotate", "v1", "-m", "first")
    git(path, "checkout", "--quiet", "-b", "feature")
    commits["feature"] = commit("1.5.0")
    git(path, "checkout", "--quiet", "main")
    commits["middle"] = commit("2.0.0")
    commits["main"] = commit("3.0.0")
    return GitRepository(path, commits)


@pytest.fixture
def file_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work round the bug shown by test_local_git_repository_installs (GIT_ALLOW_PROTOCOL
    lacks `file`, so no local repository can be cloned), to test the ref handling."""
    original = _tools.tool_environment

    def patched(extra: dict[str, str] | None = None) -> dict[str, str]:
        env = original(extra)
        env["GIT_ALLOW_PROTOCOL"] += ":file"
        return env

    monkeypatch.setattr(_tools, "tool_environment", patched)


def test_local_git_repository_installs(repository: GitRepository, tmp_path: Path) -> None:
    report = install_from(tmp_path, f"{repository.path}#v1", kind="git")
    assert report.package.record.version == "1.0.0"


@pytest.mark.usefixtures("file_transport")
@pytest.mark.parametrize(
    ("ref", "version"),
    [("feature", "1.5.0"), ("v1", "1.0.0"), ("middle", "2.0.0"), (None, "3.0.0")],
    ids=["branch", "tag", "commit", "default-branch"],
)
def test_git_repository_installs_the_content_of_the_ref(
    repository: GitRepository, tmp_path: Path, ref: str | None, version: str
) -> None:
    commit = repository.commits[ref or "main"]
    spec = str(repository.path)
    if ref is not None:
        spec += "#" + (commit if ref == "middle" else ref)
    report = install_from(tmp_path, spec, kind=None)  # '.git' in the name: detected as git
    record = report.package.record
    assert (record.source_kind, record.version) == ("git", version)
    assert (record.path / "which.txt").read_text() == version
    assert commit in record.source  # the exact commit fetched is recorded
    assert not (record.path / ".git").exists()


@pytest.mark.usefixtures("file_transport")
def test_git_ref_that_does_not_exist_is_refused(repository: GitRepository, tmp_path: Path) -> None:
    with pytest.raises(InstallError, match="not a branch, tag or commit"):
        install_from(tmp_path, f"{repository.path}#no-such-ref", kind="git")
    assert recorded(tmp_path) == []
    assert staging_leftovers(tmp_path) == []


REFUSED_GIT = {
    "remote-helper": "ext::sh -c touch% {marker}",
    "file-url": "file://{repository}",
    "user-and-password": "https://user:pass@example.invalid/repo.git",
    "token": "https://token@example.invalid/x.git",
}


def _refused(name: str, repository: GitRepository, marker: Path) -> str:
    return REFUSED_GIT[name].format(marker=marker, repository=repository.path)


def _says_refused(message: str, tmp_path: Path) -> bool:
    """The refusal names itself (test folder names hold 'refused' too) and npm never ran."""
    message = message.replace(str(tmp_path), "TMP")
    return " refused" in message and "npm" not in message


@pytest.mark.parametrize("name", REFUSED_GIT)
def test_refused_git_source_is_an_install_error_and_records_nothing(
    name: str, repository: GitRepository, tmp_path: Path
) -> None:
    marker = tmp_path / "helper-ran"
    with pytest.raises(InstallError) as refusal:
        install_from(tmp_path / "home", _refused(name, repository, marker), kind="git")
    assert _says_refused(str(refusal.value), tmp_path)
    assert not marker.exists()
    assert recorded(tmp_path / "home") == []
    assert version_folders(tmp_path / "home") == set()


@pytest.mark.parametrize("name", REFUSED_GIT)
def test_refused_git_source_on_the_cli_exits_1_with_install_refused(
    name: str, repository: GitRepository, tmp_path: Path, run_cli
) -> None:
    marker = tmp_path / "helper-ran"
    source = _refused(name, repository, marker)
    done = run_cli(tmp_path / "home", "install", source, "--kind", "git", "--json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert _says_refused(result["error"], tmp_path)
    assert [d["code"] for d in result["diagnostics"]] == ["install.refused"]
    assert not marker.exists()
    assert recorded(tmp_path / "home") == []


@pytest.mark.parametrize("name", ["remote-helper", "file-url"])
def test_refused_git_source_is_refused_without_a_kind_too(
    name: str, repository: GitRepository, tmp_path: Path
) -> None:
    marker = tmp_path / "helper-ran"
    plain = tmp_path / "plain"  # a folder npm could pack: file:// must not become a way round
    pi(plain, "plain-pkg")
    source = _refused(name, repository, marker).replace(str(repository.path), str(plain))
    with pytest.raises(InstallError) as refusal:
        install_from(tmp_path / "home", source, kind=None)
    assert _says_refused(str(refusal.value), tmp_path)
    assert recorded(tmp_path / "home") == []


# --------------------------------------------------------------------------- npm


class _Registry(http.server.ThreadingHTTPServer):
    daemon_threads = True
    packages: dict[str, dict[str, tuple[Path, str]]]  # name → version → (tarball, integrity)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Registry

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        name, _, rest = self.path.lstrip("/").partition("/-/")
        versions = self.server.packages.get(name)
        body: bytes | None = None
        if versions is not None and not rest:
            body = json.dumps(
                {
                    "name": name,
                    "dist-tags": {"latest": max(versions)},
                    "versions": {
                        v: {
                            "name": name,
                            "version": v,
                            "dist": {"tarball": f"{base}/{name}/-/{t.name}", "integrity": i},
                        }
                        for v, (t, i) in versions.items()
                    },
                }
            ).encode()
        elif versions is not None:
            found = [t for t, _ in versions.values() if t.name == rest]
            body = found[0].read_bytes() if found else None
        if body is None:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class Npm:
    home: Path  # HOME for npm: its .npmrc points at the local registry
    tarballs: dict[str, Path]
    markers: Path  # package scripts would create files here


def _scripts(markers: Path, who: str) -> dict[str, str]:
    return {
        step: f"touch {markers / f'{who}-{step}'}"
        for step in ("preinstall", "install", "postinstall", "prepare", "prepack")
    }


@pytest.fixture(scope="module")
def npm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Npm]:
    """A registry on 127.0.0.1 with `dep` 1.0.0 and 1.1.0 and `devonly` 1.0.0 (tarballs built
    here), and two Pi packages packed with `npm pack`: `locked-pkg` (npm-shrinkwrap.json pins
    dep 1.0.0) and `loose-pkg` (dep ^1.0.0, a dev and a peer dependency, no lockfile). Every
    script of every package would leave a marker file."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    root = tmp_path_factory.mktemp("npm")
    markers = root / "markers"
    markers.mkdir()
    home = root / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "npm_config_update_notifier": "false"}

    def pack(folder: Path) -> tuple[Path, str]:
        done = subprocess.run(
            ["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", str(root)],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        info = json.loads(done.stdout)[0]
        return root / info["filename"], info["integrity"]

    server = _Registry(("127.0.0.1", 0), _Handler)
    server.packages = {}
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]
    (home / ".npmrc").write_text(f"registry=http://127.0.0.1:{port}/\ncache={root / 'cache'}\n")
    try:
        for name, version in (("dep", "1.0.0"), ("dep", "1.1.0"), ("devonly", "1.0.0")):
            # The dependencies as the registry serves them (the installer never packs them):
            # built here, not by three more `npm pack` runs.
            files = {
                "package.json": {
                    "name": name,
                    "version": version,
                    "scripts": _scripts(markers, f"{name}-{version}"),
                },
                "index.js": f"module.exports = {version!r};\n",
            }
            published = root / f"{name}-{version}.tgz"
            published.write_bytes(registry_tarball(files))
            integrity = (
                "sha512-"
                + base64.b64encode(hashlib.sha512(published.read_bytes()).digest()).decode()
            )
            server.packages.setdefault(name, {})[version] = (published, integrity)
        dep_1 = server.packages["dep"]["1.0.0"]
        locked = pi(
            root / "src-locked",
            "locked-pkg",
            dependencies={"dep": "^1.0.0"},
            scripts=_scripts(markers, "locked-pkg"),
        )
        shrinkwrap = {
            "name": "locked-pkg",
            "version": "1.0.0",
            "lockfileVersion": 3,
            "requires": True,
            "packages": {
                "": {"name": "locked-pkg", "version": "1.0.0", "dependencies": {"dep": "^1.0.0"}},
                "node_modules/dep": {
                    "version": "1.0.0",
                    "resolved": f"http://127.0.0.1:{port}/dep/-/{dep_1[0].name}",
                    "integrity": dep_1[1],
                    "hasInstallScript": True,
                },
            },
        }
        write_tree(locked, {"npm-shrinkwrap.json": shrinkwrap})
        loose = pi(
            root / "src-loose",
            "loose-pkg",
            dependencies={"dep": "^1.0.0"},
            devDependencies={"devonly": "^1.0.0"},
            peerDependencies={"hostsdk": "*"},  # not in the registry: must not be fetched
            scripts=_scripts(markers, "loose-pkg"),
        )
        tarballs = {}
        for name, folder in (("locked-pkg", locked), ("loose-pkg", loose)):
            tarball, integrity = pack(folder)
            server.packages[name] = {"1.0.0": (tarball, integrity)}
            tarballs[name] = tarball
        assert list(markers.iterdir()) == []  # packing ran nothing
        yield Npm(home, tarballs, markers)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def npm_home(npm: Npm, monkeypatch: pytest.MonkeyPatch) -> Npm:
    monkeypatch.setenv("HOME", str(npm.home))  # npm reads the registry from ~/.npmrc
    return npm


def _module_version(package_root: Path, name: str) -> str:
    return json.loads((package_root / "node_modules" / name / "package.json").read_text())[
        "version"
    ]


def test_npm_tarball_made_with_npm_pack_installs_with_production_dependencies(
    npm_home: Npm, tmp_path: Path
) -> None:
    report = install_from(tmp_path, npm_home.tarballs["loose-pkg"], kind=None)
    record = report.package.record
    assert (record.id, record.ecosystem, record.source_kind) == ("loose-pkg", "pi", "npm")
    assert _module_version(record.path, "dep") == "1.1.0"  # newest matching ^1.0.0
    assert not (record.path / "node_modules" / "devonly").exists()
    assert not (record.path / "node_modules" / "hostsdk").exists()  # left to the sidecar
    assert list(npm_home.markers.iterdir()) == []


def test_npm_lockfile_is_honoured(npm_home: Npm, tmp_path: Path) -> None:
    report = install_from(tmp_path, npm_home.tarballs["locked-pkg"], kind="npm")
    assert _module_version(report.package.record.path, "dep") == "1.0.0"  # not the newer 1.1.0
    assert list(npm_home.markers.iterdir()) == []


def test_npm_registry_spec_is_packed_and_installed(npm_home: Npm, tmp_path: Path) -> None:
    report = install_from(tmp_path, "locked-pkg@1.0.0", kind=None)
    record = report.package.record
    assert (record.id, record.version, record.source_kind) == ("locked-pkg", "1.0.0", "npm")
    assert "locked-pkg-1.0.0.tgz" in record.source
    assert (record.path / "index.ts").is_file()
    assert _module_version(record.path, "dep") == "1.0.0"


def test_npm_package_scripts_never_run(npm_home: Npm, tmp_path: Path) -> None:
    # The other npm tests check the markers too; this one goes through `npm pack` of a
    # registry spec and `npm install` of the dependencies without a lockfile.
    report = install_from(tmp_path, "loose-pkg@1.0.0", kind="npm")
    assert _module_version(report.package.record.path, "dep") == "1.1.0"
    # preinstall, install, postinstall, prepare, prepack of the package and of `dep`
    assert list(npm_home.markers.iterdir()) == []


# --------------------------------------------------------------------------- bad input


def test_unknown_source_kind_is_refused(tmp_path: Path) -> None:
    source = nanobot(tmp_path / "src", "kind.demo")
    with pytest.raises(InstallError, match="unknown source kind 'svn'"):
        install_from(tmp_path / "home", source, kind="svn")
    assert recorded(tmp_path / "home") == []


def test_missing_folder_is_refused(tmp_path: Path, run_cli) -> None:
    with pytest.raises(InstallError, match="is not a folder"):
        install_from(tmp_path / "home", tmp_path / "missing", kind="local")
    assert recorded(tmp_path / "home") == []
    done = run_cli(
        tmp_path / "home", "install", str(tmp_path / "missing"), "--kind", "local", "--json"
    )
    assert done.returncode == 1
    assert [d["code"] for d in json.loads(done.stdout)["diagnostics"]] == ["install.refused"]
    assert recorded(tmp_path / "home") == []


def test_missing_folder_without_a_kind_says_the_folder_is_missing(tmp_path: Path) -> None:
    with pytest.raises(InstallError, match=r"not a folder|does not exist|no such"):
        install_from(tmp_path / "home", tmp_path / "missing", kind=None)


@needs_landlock
@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_npm_writes_nothing_outside_the_staging_folder_and_its_cache(
    npm_home: Npm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    # npm writes a debug log on every run; pointed outside, only the sandbox stops it (so
    # the test proves the sandbox, not a setting npm ignores).
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("npm_config_logs_dir", str(outside))
    monkeypatch.setenv("GATEWAY_SANDBOX", sandbox)
    report = install_from(tmp_path, "loose-pkg@1.0.0", kind="npm")
    assert _module_version(report.package.record.path, "dep") == "1.1.0"
    written = list(outside.iterdir())
    assert (written == []) is (sandbox == "on"), written


def test_npm_does_not_start_unconfined_when_the_sandbox_is_required(
    npm_home: Npm, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gateway.sandbox import KernelSupport, _spawn

    monkeypatch.setattr(
        _spawn, "detect_support", lambda: KernelSupport(0, seccomp=True, reason="no Landlock")
    )
    monkeypatch.setenv("GATEWAY_REQUIRE_SANDBOX", "1")
    with pytest.raises(InstallError) as raised:
        install_from(tmp_path, "loose-pkg@1.0.0", kind="npm")
    assert "npm pack loose-pkg@1.0.0: it could not be confined: the sandbox is required" in str(
        raised.value
    )


def test_an_npm_tarball_of_no_format_is_refused_before_its_dependencies_are_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oh-my-til (an Obsidian plugin on npm) had its dependencies installed — 8 s of npm —
    before it was refused as no package of any format."""
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # npm would fail there
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    folder = write_tree(tmp_path / "src" / "package", {
        "package.json": {"name": "obsidian-notes", "version": "1.0.0",
                         "dependencies": {"left-pad": "1.3.0"}},
        "main.js": "module.exports = {};\n", "manifest.json": {"id": "notes"},
    })  # fmt: skip
    archive = tmp_path / "obsidian-notes-1.0.0.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname="package")
    said: list[str] = []
    with pytest.raises(InstallError) as refused:
        install_from(tmp_path / "home", archive, kind="npm", progress=said.append)
    assert [d.code for d in refused.value.diagnostics] == ["package.not_detected"], said
    assert not [step for step in said if "dependencies" in step], said
