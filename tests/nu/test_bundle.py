"""Nu tools are bundled at install with everything they import (esbuild, no install scripts
run), imports that leave the package refuse that tool alone, and an update that changes a
tool's code without raising its version keeps the earlier bundle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters._sidecars import sidecar_dir
from adapters.nu._bundle import BUNDLES_DIR, read_bundles
from gateway import open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests.adapters._helpers import write_tree
from tests.nu._packages import (
    add_ms,
    config_for,
    install_ready,
    probe_package,
    requires_runtime,
    standup,
)

pytestmark = requires_runtime

SHARED = "export function shout(text) { return `${text.toUpperCase()}!`; }\n"
USES_SHARED = (
    'import { shout } from "../../lib/shared.mjs";\nexport default (a) => shout(a.text);\n'
)


def installed_root(home: Path, package: str) -> Path:
    with StateStore.open(home) as store:
        return store.get_package(package).record.path


def test_esbuild_needs_no_install_script() -> None:
    """`gateway setup` runs `npm ci --ignore-scripts`: esbuild's postinstall never ran (its
    bin/esbuild is still the JavaScript launcher it would have replaced), and bundling works
    (every other test here bundles with it)."""
    launcher = sidecar_dir() / "node_modules" / "esbuild" / "bin" / "esbuild"
    assert launcher.read_bytes().startswith(b"#!/usr/bin/env node")
    platform = sidecar_dir() / "node_modules" / "@esbuild"
    assert [p.name for p in platform.iterdir()]  # the binary came as an optional dependency


def test_tools_sharing_code_and_an_npm_dependency_are_bundled_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    package = install_ready(home, standup(tmp_path / "standup"))
    root = installed_root(home, package)
    bundles = read_bundles(root)
    assert bundles is not None and bundles.refused == {}
    assert sorted(bundles.tools) == ["standup__chart", "standup__post", "standup__summarize"]
    code = (root / BUNDLES_DIR / bundles.tools["standup__summarize"].file).read_text()
    assert "node_modules/ms/index.js" in code and "lib/format.ts" in code
    assert str(tmp_path) not in code  # paths relative to the package, wherever it was staged


def test_the_same_sources_give_the_same_bundles_and_content_hash(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = standup(tmp_path / "standup")
    first = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    second = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    assert first.package.record.content_hash == second.package.record.content_hash
    assert not second.result.hash_changed


def test_an_import_leaving_the_package_refuses_that_tool_and_the_rest_installs(
    tmp_path: Path,
) -> None:
    (tmp_path / "outside.mjs").write_text("export default 'stolen';\n")
    source = probe_package(
        tmp_path / "pkg",
        {
            "good": 'export default () => "fine";',
            "escape": 'import x from "../../../outside.mjs";\nexport default () => x;',
        },
    )
    report = install(
        tmp_path / "home", str(source), kind="local", inspector=load_adapters().inspect
    )
    refused = [d for d in report.diagnostics if d.code == "nu.import_outside_package"]
    assert [d.contribution for d in refused] == ["probe__escape"]
    assert '"../../../outside.mjs"' in refused[0].message
    assert "tools/escape/index.mjs" in refused[0].message
    bundles = read_bundles(report.package.record.path)
    assert bundles is not None and list(bundles.tools) == ["probe__good"]


def test_an_npm_package_not_installed_in_the_package_is_not_bundled_from_outside(
    tmp_path: Path,
) -> None:
    """The folder above the package has the module; resolving it there would leave the
    package, so the tool is refused."""
    add_ms(tmp_path)  # tmp_path/node_modules/ms: outside the package
    source = probe_package(
        tmp_path / "pkg", {"dep": 'import ms from "ms";\nexport default () => ms(1000);'}
    )
    report = install(
        tmp_path / "home", str(source), kind="local", inspector=load_adapters().inspect
    )
    assert [d.code for d in report.diagnostics if d.contribution == "probe__dep"] == [
        "nu.import_outside_package"
    ]


def test_a_tool_that_does_not_parse_is_refused_naming_the_error(tmp_path: Path) -> None:
    source = probe_package(tmp_path / "pkg", {"broken": "export default () => {"})
    report = install(
        tmp_path / "home", str(source), kind="local", inspector=load_adapters().inspect
    )
    (failed,) = [d for d in report.diagnostics if d.code == "nu.bundle_failed"]
    assert failed.message.startswith(
        "tools/broken/tool.yaml: tool 'probe__broken' cannot be bundled: tools/broken/index.mjs:1:"
    )


@pytest.mark.anyio
async def test_a_refused_tool_is_reported_at_each_start_and_not_offered(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = probe_package(
        tmp_path / "pkg", {"ok": "export default () => 1;", "broken": "export {"}
    )
    install_ready(home, source)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        assert [t.name for t in gateway.tools()] == ["probe__ok"]
        assert [d.contribution for d in gateway.diagnostics if d.code == "nu.bundle_failed"] == [
            "probe__broken"
        ]


def test_a_shipped_bundles_folder_is_discarded(tmp_path: Path) -> None:
    source = probe_package(
        tmp_path / "pkg",
        {"ok": "export default () => 1;"},
        files={f"{BUNDLES_DIR}/probe__ok.mjs": "export default () => 'planted';"},
    )
    report = install(
        tmp_path / "home", str(source), kind="local", inspector=load_adapters().inspect
    )
    assert "nu.bundles_replaced" in [d.code for d in report.diagnostics]
    root = report.package.record.path
    assert "planted" not in (root / BUNDLES_DIR / "probe__ok.mjs").read_text()


def _version(source: Path, tool: str, version: int, code: str) -> None:
    manifest = json.loads((source / "tools" / tool / "tool.yaml").read_text())
    manifest["version"] = version
    write_tree(
        source, {f"tools/{tool}/tool.yaml": json.dumps(manifest), f"tools/{tool}/index.mjs": code}
    )


@pytest.mark.anyio
async def test_changed_code_without_a_higher_version_keeps_the_previous_bundle(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    source = probe_package(tmp_path / "pkg", {"greet": 'export default () => "v1";'})
    package = install_ready(home, source)
    _version(source, "greet", 1, 'export default () => "v1 changed";')
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    (kept,) = [d for d in report.diagnostics if d.code == "nu.tool_version_not_bumped"]
    assert kept.contribution == "probe__greet"
    assert "its code changed but its version is still 1" in kept.message
    with StateStore.open(home) as store:
        store.set_trusted(package, True)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        assert (await gateway.call_tool("probe__greet", {})).content == '"v1"'


@pytest.mark.anyio
async def test_changed_code_with_a_higher_version_gets_the_new_bundle(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = probe_package(tmp_path / "pkg", {"greet": 'export default () => "v1";'})
    package = install_ready(home, source)
    _version(source, "greet", 2, 'export default () => "v2";')
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    assert "nu.tool_version_not_bumped" not in [d.code for d in report.diagnostics]
    with StateStore.open(home) as store:
        store.set_trusted(package, True)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, trust=True, config=config_for(home, tmp_path)) as gateway:
        assert (await gateway.call_tool("probe__greet", {})).content == '"v2"'


def test_a_change_in_shared_code_counts_as_a_change_of_every_tool_importing_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    source = probe_package(
        tmp_path / "pkg",
        {"a": USES_SHARED, "b": 'export default () => "independent";'},
        files={"lib/shared.mjs": SHARED},
    )
    install_ready(home, source)
    write_tree(source, {"lib/shared.mjs": SHARED.replace("!", "?")})
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    kept = [d.contribution for d in report.diagnostics if d.code == "nu.tool_version_not_bumped"]
    assert kept == ["probe__a"]


def test_tools_whose_names_differ_only_in_case_get_bundles_macos_keeps_apart(
    tmp_path: Path,
) -> None:
    """``probe__Fmt.mjs`` and ``probe__fmt.mjs`` are one file on macOS and Windows: the
    second bundle would replace the first, and a call of one tool run the other's code."""
    source = probe_package(
        tmp_path / "p",
        {"Fmt": "export default () => 'upper';\n", "fmt": "export default () => 'lower';\n"},
    )
    home = tmp_path / "home"
    root = installed_root(home, install_ready(home, source))
    bundles = read_bundles(root)
    assert bundles is not None and bundles.refused == {}
    files = {name: record.file for name, record in bundles.tools.items()}
    assert len({file.casefold() for file in files.values()}) == 2
    assert "upper" in (root / BUNDLES_DIR / files["probe__Fmt"]).read_text()
    assert "lower" in (root / BUNDLES_DIR / files["probe__fmt"]).read_text()


def test_a_tool_with_a_long_name_keeps_its_bundle(tmp_path: Path) -> None:
    """Its bundle's file name is encoded (over 64 characters); reading the manifest back
    took only names ``safe_name`` leaves as they are, and dropped it."""
    long = "x" * 70
    home = tmp_path / "home"
    root = installed_root(
        home,
        install_ready(home, probe_package(tmp_path / "p", {long: "export default () => 'hi';\n"})),
    )
    bundles = read_bundles(root)
    assert bundles is not None and list(bundles.tools) == [f"probe__{long}"]
