"""A dependency that builds its native addon at install, with no binary for this platform,
is named at install: install scripts never run here (gateway/packages/_native.py)."""

from __future__ import annotations

from pathlib import Path

from gateway.packages._native import native_platform, unbuilt_native_addons
from tests.adapters._helpers import write_tree
from tests.gateway.packages._helpers import install_from

GYP = {"package.json": {"name": "fake-pty", "version": "1.0.0"}, "binding.gyp": "{}"}


def _package(root: Path, addon: dict[str, object], where: str = "fake-pty") -> Path:
    files: dict[str, object] = {
        "package.json": {"name": "shell-tools", "version": "1.0.0",
                         "pi": {"extensions": ["./index.ts"]}},
        "index.ts": "export default () => {}\n",
    }  # fmt: skip
    files.update({f"node_modules/{where}/{name}": text for name, text in addon.items()})
    return write_tree(root, files)


def test_an_addon_built_at_install_is_named_with_the_platform(tmp_path: Path) -> None:
    root = _package(tmp_path / "p", GYP)
    (found,) = unbuilt_native_addons(root, "shell-tools")
    assert found.code == "install.native_addon_unbuilt" and found.contribution == "fake-pty"
    assert native_platform() in found.message and "install scripts never run" in found.message


def test_a_prebuilt_binary_for_this_platform_loads_as_it_is(tmp_path: Path) -> None:
    here = native_platform()
    root = _package(tmp_path / "p", {**GYP, f"prebuilds/{here}/node.napi.node": "x"})
    assert unbuilt_native_addons(root, "shell-tools") == []
    built = _package(tmp_path / "b", {**GYP, "build/Release/pty.node": "x"})
    assert unbuilt_native_addons(built, "shell-tools") == []


def test_prebuilt_binaries_for_other_platforms_only_do_not_count(tmp_path: Path) -> None:
    root = _package(tmp_path / "p", {**GYP, "prebuilds/win32-x64/node.napi.node": "x"})
    assert [d.contribution for d in unbuilt_native_addons(root, "shell-tools")] == ["fake-pty"]


def test_a_nested_scoped_dependency_is_named_by_its_package_name(tmp_path: Path) -> None:
    root = _package(tmp_path / "p", GYP, where="host-lib/node_modules/@acme/pty")
    assert [d.contribution for d in unbuilt_native_addons(root, "x")] == ["@acme/pty"]


def test_install_says_it_before_anything_runs(tmp_path: Path) -> None:
    report = install_from(tmp_path / "gw", _package(tmp_path / "src", GYP))
    assert "install.native_addon_unbuilt" in [d.code for d in report.diagnostics]
