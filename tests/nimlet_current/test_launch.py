"""Launch details current nimlet changed: ``command[0]`` with a backslash is relative to
the extension folder too (manifests written on Windows)."""

from __future__ import annotations

from pathlib import Path

from gateway.runtime import resolve_command


def test_a_backslash_path_is_relative_to_the_extension_folder(tmp_path: Path) -> None:
    assert resolve_command(["bin\\run", "--x"], tmp_path, None) == [
        str((tmp_path / "bin\\run").resolve()),
        "--x",
    ]
    assert resolve_command(["./run"], tmp_path, None)[0] == str((tmp_path / "run").resolve())
    assert resolve_command(["node", "a.mjs"], tmp_path, None) == ["node", "a.mjs"]
