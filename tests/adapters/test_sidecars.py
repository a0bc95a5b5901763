"""Where the Node sidecar runs from: the wheel carries its sources, `gateway setup` installs
its modules beside a copy of them outside site-packages (or in a checkout's sidecars/), and
the gateway names `gateway setup` whenever they are missing or stale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from adapters import _sidecars
from adapters._sidecar_prepare import (
    bundle,
    bundler_digest,
    prepared,
    warm_compile_cache,
    warm_digest,
)
from adapters.pi import plan_pi
from gateway.model import LaunchRefusal
from gateway.runtime import find_node, npm_command
from tests.adapters._helpers import write_tree

REPO = Path(__file__).resolve().parents[2]


def test_a_checkout_runs_the_sidecar_from_its_own_sidecars_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GATEWAY_SIDECAR_DIR", raising=False)
    assert _sidecars.SOURCE_DIR == REPO / "sidecars"
    assert _sidecars.sidecar_dir() == REPO / "sidecars"


def test_an_installed_gateway_sets_up_under_share_never_in_site_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GATEWAY_SIDECAR_DIR", raising=False)
    installed = tmp_path / "lib" / "site-packages" / "sidecars"  # no pyproject.toml beside it
    installed.mkdir(parents=True)
    monkeypatch.setattr(_sidecars, "SOURCE_DIR", installed)
    where = _sidecars.sidecar_dir()
    assert where == Path(sys.prefix) / "share" / "extension-gateway" / "sidecars"
    assert not where.is_relative_to(installed.parent)


def test_gateway_sidecar_dir_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_SIDECAR_DIR", str(tmp_path / "mine"))
    assert _sidecars.sidecar_dir() == tmp_path / "mine"


def test_missing_modules_refuse_the_launch_naming_gateway_setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_SIDECAR_DIR", str(tmp_path / "empty"))
    refusal = plan_pi("demo", tmp_path, ["index.ts"])
    assert isinstance(refusal, LaunchRefusal)
    assert refusal.reason == (
        f"the Node sidecar's modules are not installed in {tmp_path / 'empty'}; run `gateway setup`"
    )
    assert refusal.hint == "gateway setup"


@pytest.fixture(scope="module")
def lockfiles(tmp_path_factory: pytest.TempPathFactory) -> Callable[[bool], bytes]:
    """The sources' package-lock.json, made by npm once per module for each shape (the same
    sources give the same lockfile; a test gets its own copy)."""
    made: dict[bool, bytes] = {}

    def lockfile(with_openclaw: bool) -> bytes:
        if with_openclaw not in made:
            node = find_node()
            assert node is not None
            npm = npm_command(node)
            assert npm is not None
            folder = write_tree(tmp_path_factory.mktemp("lock"), _tree(with_openclaw))
            subprocess.run([*npm, "install", "--package-lock-only", "--ignore-scripts",
                            "--offline"], cwd=folder, check=True, capture_output=True)  # fmt: skip
            made[with_openclaw] = (folder / "package-lock.json").read_bytes()
        return made[with_openclaw]

    return lockfile


@pytest.fixture
def sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lockfiles: Callable[[bool], bytes]
) -> Path:
    """Sidecar sources shaped like an installed wheel's: a module in a subfolder and a
    dependency npm installs from the sources themselves (no registry needed)."""
    return _sources(tmp_path, monkeypatch, lockfiles, with_openclaw=False)


@pytest.fixture
def two_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lockfiles: Callable[[bool], bytes]
) -> Path:
    """The same with a second install set: an ``openclaw`` devDependency (local too)."""
    return _sources(tmp_path, monkeypatch, lockfiles, with_openclaw=True)


def _tree(with_openclaw: bool) -> dict[str, object]:
    dev = {"devDependencies": {"openclaw": "file:./vendor/openclaw"}} if with_openclaw else {}
    return {
        "package.json": {
            "name": "sidecar-under-test",
            "version": "1.0.0",
            "private": True,
            "type": "module",
            "dependencies": {"local-dep": "file:./vendor/local-dep"},
            **dev,
        },
        "vendor/openclaw/package.json": {"name": "openclaw", "version": "2026.9.6"},
        "main.mjs": 'import value from "local-dep";\nconsole.log(value);\n',
        "pi/extra.mjs": "export const extra = 1;\n",
        "vendor/local-dep/package.json": {
            "name": "local-dep",
            "version": "1.0.0",
            "main": "index.js",
        },
        "vendor/local-dep/index.js": "module.exports = 'from the dependency';\n",
    }


def _sources(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lockfiles: Callable[[bool], bytes],
    *,
    with_openclaw: bool,
) -> Path:
    if find_node() is None:
        pytest.skip("no Node")
    folder = write_tree(tmp_path / "site-packages" / "sidecars", _tree(with_openclaw))
    (folder / "package-lock.json").write_bytes(lockfiles(with_openclaw))
    monkeypatch.setattr(_sidecars, "SOURCE_DIR", folder)
    monkeypatch.setenv("GATEWAY_SIDECAR_DIR", str(tmp_path / "share" / "sidecars"))
    monkeypatch.setenv("GATEWAY_HOME", str(tmp_path / "gw"))
    return folder


def test_setup_copies_the_sources_beside_the_modules_and_the_sidecar_runs_there(
    sources: Path, tmp_path: Path
) -> None:
    where = tmp_path / "share" / "sidecars"
    assert "run `gateway setup`" in (_sidecars.sidecar_problem("main.mjs") or "")
    progress: list[str] = []
    summary = _sidecars.setup_step(progress.append, tmp_path / "gw")
    assert summary.startswith(f"Node sidecar: modules installed in {where} (")
    assert (where / "pi" / "extra.mjs").is_file() and (where / "package-lock.json").is_file()
    assert (where / "node_modules" / "local-dep").exists()
    assert not (sources / "node_modules").exists()  # nothing written where the sources are
    assert _sidecars.sidecar_problem("main.mjs") is None
    node = find_node()
    assert node is not None
    ran = subprocess.run([node, str(where / "main.mjs")], capture_output=True, text=True)
    assert ran.stdout.strip() == "from the dependency"
    assert any("npm ci" in line for line in progress)
    # again: nothing to do
    assert _sidecars.setup_step(progress.append, tmp_path / "gw").startswith(
        "Node sidecar: modules up to date"
    )


def test_setup_installs_the_openclaw_set_only_when_asked_for_and_keeps_it(
    two_sets: Path, tmp_path: Path
) -> None:
    where, home = tmp_path / "share" / "sidecars", tmp_path / "gw"
    progress: list[str] = []
    summary = _sidecars.setup_step(progress.append, home)
    assert (where / "node_modules" / "local-dep").exists()
    assert not (where / "node_modules" / "openclaw").exists()
    # What `--openclaw` adds is said once: in the step, with its size, not again at the end.
    assert summary.endswith(" (without the OpenClaw SDK)")
    assert [line for line in [*progress, summary] if "gateway setup --openclaw" in line] == [
        "the OpenClaw SDK, for OpenClaw plugins, is not installed: `gateway setup --openclaw` "
        "adds it: size not measured for this lockfile"
    ]
    assert "installing the Pi and Nu runtimes: size not measured for this lockfile" in progress
    progress.clear()
    summary = _sidecars.setup_step(progress.append, home, frozenset({"openclaw"}))
    assert summary == f"Node sidecar: modules installed in {where} (with the OpenClaw SDK)"
    # Asked for: said once, by what the step does ("adding the OpenClaw SDK: …").
    assert [line for line in progress if "OpenClaw SDK" in line] == [
        "adding the OpenClaw SDK: size not measured for this lockfile (npm ci reinstalls the "
        "rest; what its cache holds is not downloaded again)"
    ]
    assert _sidecars.openclaw_installed(where) and (where / "node_modules" / "local-dep").exists()
    # A plain setup later keeps it.
    assert _sidecars.setup_step(progress.append, home) == (
        f"Node sidecar: modules up to date in {where} (with the OpenClaw SDK)"
    )


def test_sources_of_another_version_ask_for_setup_again(sources: Path, tmp_path: Path) -> None:
    _sidecars.setup_step(lambda message: None, tmp_path / "gw")
    (sources / "pi" / "extra.mjs").write_text("export const extra = 2;\n")  # an upgrade
    problem = _sidecars.sidecar_problem("main.mjs")
    assert problem is not None and "another version of the gateway; run `gateway setup`" in problem
    (sources / "pi" / "extra.mjs").unlink()  # a module the new version no longer ships
    _sidecars.setup_step(lambda message: None, tmp_path / "gw")
    assert not (tmp_path / "share" / "sidecars" / "pi" / "extra.mjs").exists()
    assert _sidecars.sidecar_problem("main.mjs") is None


def test_bundles_made_by_another_bundler_are_made_again(tmp_path: Path) -> None:
    """A checkout's ``bundle.mjs`` is edited in place: bundles it made before the edit are
    not taken as ready (a stale Pi SDK bundle kept undici eager after bundle.mjs changed)."""
    node = find_node()
    if node is None:
        pytest.skip("no Node")
    where = tmp_path / "sidecars"
    gateway = where / "node_modules" / ".gateway"
    (gateway / "compile-cache").mkdir(parents=True)
    (where / "bundle.mjs").write_text(
        "import fs from 'node:fs';"
        "fs.mkdirSync('node_modules/.gateway/pi', { recursive: true });"
        "fs.writeFileSync('node_modules/.gateway/pi/manifest.json', '{}');"
    )
    (gateway / "compile-cache.sha256").write_text(warm_digest(where))
    assert not prepared(where, openclaw=False)
    bundle(node, where, dict(os.environ), lambda _: None)
    assert prepared(where, openclaw=False)
    (where / "bundle.mjs").write_text((where / "bundle.mjs").read_text() + "\n// changed\n")
    assert not prepared(where, openclaw=False)


def test_a_compile_cache_made_with_other_node_flags_is_made_again(tmp_path: Path) -> None:
    """V8 takes a compile cache entry only under the flags it was made with: a cache made
    before the sidecar's flags (or the module that sets the tier-up ones) changed serves no
    start, and setup makes it again."""
    where = tmp_path / "sidecars"
    gateway = where / "node_modules" / ".gateway"
    (gateway / "compile-cache").mkdir(parents=True)
    (gateway / "pi").mkdir()
    (gateway / "pi" / "manifest.json").write_text("{}")
    (where / "bundle.mjs").write_text("// a bundler\n")
    (gateway / "bundler.sha256").write_text(bundler_digest(where))
    (where / "lib").mkdir()
    (where / "lib" / "tier-up.mjs").write_text("// the tier-up flags\n")
    (gateway / "compile-cache.sha256").write_text(warm_digest(where))
    assert prepared(where, openclaw=False)
    (where / "lib" / "tier-up.mjs").write_text("// other tier-up flags\n")
    assert not prepared(where, openclaw=False)
    (gateway / "compile-cache.sha256").write_text(warm_digest(where))
    assert prepared(where, openclaw=False)
    (gateway / "compile-cache.sha256").unlink()  # a cache from before the digest was kept
    assert not prepared(where, openclaw=False)


_RECORDING_SIDECAR = """
import fs from "node:fs";
const spec = JSON.parse(process.argv.at(-1));
const sources = spec.packages.map((p) => p.entries.map((e) => fs.readFileSync(e, "utf8")));
fs.writeFileSync(new URL("seen.json", import.meta.url), JSON.stringify({ spec, sources }));
console.log(JSON.stringify({ type: "register" }));
"""


@pytest.mark.parametrize("sdk", [True, False], ids=["with-the-openclaw-sdk", "pi-only"])
def test_the_compile_cache_is_made_by_loading_every_openclaw_sdk_subpath(
    tmp_path: Path, sdk: bool
) -> None:
    """Setup's warming start loads what Pi packages load and, with the OpenClaw SDK
    installed, a plugin importing each subpath the SDK exports: a plugin's SDK modules then
    come from the compile cache, whichever it imports."""
    node = find_node()
    if node is None:
        pytest.skip("no Node")
    where = tmp_path / "sidecars"
    (where / "node_modules" / "@earendil-works").mkdir(parents=True)
    (where / "lib").mkdir()
    (where / "lib" / "tier-up.mjs").write_text("")
    (where / "sidecar.mjs").write_text(_RECORDING_SIDECAR)
    if sdk:
        exports = {".": "./index.js", "./plugin-sdk/core": "./c.js", "./plugin-sdk/*": "./x.js",
                   "./plugin-sdk/plugin-entry": "./p.js"}  # fmt: skip
        (where / "node_modules" / "openclaw").mkdir()
        manifest = {"name": "openclaw", "exports": exports}
        (where / "node_modules" / "openclaw" / "package.json").write_text(json.dumps(manifest))
    warm_compile_cache(node, where, dict(os.environ), lambda _: None)
    seen = json.loads((where / "seen.json").read_text())
    hosts = [package["host"] for package in seen["spec"]["packages"]]
    assert hosts == (["pi", "openclaw"] if sdk else ["pi"])
    if sdk:
        assert seen["sources"][1][0].splitlines()[:2] == [
            'import "openclaw/plugin-sdk/core";',
            'import "openclaw/plugin-sdk/plugin-entry";',
        ]
    stamp = where / "node_modules" / ".gateway" / "compile-cache.sha256"
    assert stamp.read_text() == warm_digest(where)


def test_an_unwritable_place_says_to_set_gateway_sidecar_dir(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GATEWAY_SIDECAR_DIR", str(blocker / "sidecars"))
    with pytest.raises(_sidecars.SidecarSetupError, match="set GATEWAY_SIDECAR_DIR"):
        _sidecars.setup_step(lambda message: None, tmp_path / "gw")


_NOT_SOURCES = (".git", ".venv", "node_modules", "__pycache__", "*.egg-info", "build", "dist",
                ".pytest_cache", ".pytest-pycache", ".ruff_cache", ".mypy_cache", ".hypothesis")  # fmt: skip


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout's sources, built once for the module's tests. Built from
    a copy: setuptools walks everything under ``sidecars/`` before it excludes
    ``node_modules``, and a real one (hundreds of MB) takes minutes to walk; the copy gets a
    small ``node_modules`` instead, which the wheel must still leave out."""
    source = tmp_path_factory.mktemp("source") / "checkout"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(*_NOT_SOURCES))
    module = source / "sidecars" / "node_modules" / "left-pad"
    module.mkdir(parents=True)
    (module / "index.js").write_text("module.exports = (s) => s;\n")
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {done.stderr.strip().splitlines()[-1:]}")
    (built,) = out.glob("*.whl")
    return built


def test_the_wheel_carries_every_sidecar_source_and_no_modules(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = sorted(
        name.removeprefix("sidecars/") for name in names if name.startswith("sidecars/")
    )
    expected = sorted(str(path) for path in _sidecars.source_files())
    assert shipped == expected
    assert {"package.json", "package-lock.json"} <= set(shipped)
    assert not any("node_modules" in name for name in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[extension_gateway.setup]" in text and "adapters._sidecars:setup_step" in text
    assert json.loads((REPO / "sidecars" / "package.json").read_text())["private"] is True


def test_the_wheel_carries_every_doc_for_gateway_docs(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    docs = sorted(
        path.relative_to(REPO / "docs").as_posix() for path in (REPO / "docs").rglob("*.md")
    )
    assert "performance/cli.md" in docs  # a page in a subfolder is shipped too
    assert docs and all(f"gateway/_docs/{name}" in names for name in docs)
    cli = zipfile.ZipFile(wheel).read("gateway/_docs/cli.md").decode()
    assert cli == (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
