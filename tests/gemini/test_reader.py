"""The Gemini CLI extension reader, by Gemini CLI's own rules: what refuses the extension,
what is dropped with a diagnostic, what a headless host names as unsupported, and how TOML
commands are named and expanded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.gemini import GeminiAdapter, command_name, expand
from gateway.model import CatalogEntry


def extension(root: Path, manifest: dict[str, Any] | str, **files: str) -> CatalogEntry:
    root.mkdir(parents=True, exist_ok=True)
    text = manifest if isinstance(manifest, str) else json.dumps(manifest)
    (root / "gemini-extension.json").write_text(text)
    for rel, content in files.items():
        path = root / rel.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return GeminiAdapter().inspect(root)


def codes(entry: CatalogEntry) -> dict[str, str]:
    return {d.code: d.message for d in entry.diagnostics}


@pytest.mark.parametrize(
    ("manifest", "problem"),
    [
        ({"version": "1.0.0"}, 'missing "name"'),
        ({"name": "x"}, 'missing "version"'),
        ({"name": "bad name!", "version": "1"}, "invalid extension name"),
    ],
)
def test_what_gemini_cli_skips_is_refused_with_a_code(
    tmp_path: Path, manifest: dict[str, Any], problem: str
) -> None:
    entry = extension(tmp_path / "e", manifest)
    assert not entry.ok
    assert problem in codes(entry)["gemini.manifest_invalid"]


def test_a_manifest_that_is_not_json_is_a_diagnostic(tmp_path: Path) -> None:
    entry = extension(tmp_path / "e", "{ not json")
    assert not entry.ok and "package.json_invalid" in codes(entry)


def test_a_field_of_the_wrong_type_is_reported_and_the_extension_loads(tmp_path: Path) -> None:
    entry = extension(tmp_path / "e", {"name": "e", "version": 1, "mcpServers": []})
    assert entry.ok and entry.version == "1"
    assert "mcpServers is an array, not an object" in " ".join(
        d.message for d in entry.diagnostics if d.code == "gemini.field_ignored"
    )


def test_a_context_file_outside_the_extension_is_dropped_not_read(tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("outside")
    entry = extension(tmp_path / "e", {"name": "e", "version": "1",
                                       "contextFileName": ["../secret.md", "/etc/hostname"]})  # fmt: skip
    assert entry.ok and not [c for c in entry.contributions if c.kind == "context_file"]
    messages = [d.message for d in entry.diagnostics if d.code == "gemini.context_invalid"]
    assert len(messages) == 2


def test_the_default_context_file_is_read_and_a_missing_one_is_quiet(tmp_path: Path) -> None:
    present = extension(tmp_path / "a", {"name": "a", "version": "1"}, **{"GEMINI.md": "# A"})
    assert [c.name for c in present.contributions if c.kind == "context_file"] == ["GEMINI.md"]
    absent = extension(tmp_path / "b", {"name": "b", "version": "1"})
    assert absent.ok and not absent.diagnostics


def test_headless_parts_are_named_as_unsupported(tmp_path: Path) -> None:
    entry = extension(
        tmp_path / "e",
        {"name": "e", "version": "1", "themes": [{"name": "t"}],
         "excludeTools": ["run_shell_command(rm -rf)"],
         "mcpServers": {"r": {"httpUrl": "https://example.com/mcp"},
                        "none": {"args": ["x"]}}},
        **{"hooks__hooks.json": '{"hooks": {"AfterModel": []}}'},
    )  # fmt: skip
    found = [(d.code, d.contribution) for d in entry.diagnostics]
    assert ("gemini.unsupported", "themes") in found
    assert ("gemini.unsupported", "excludeTools") in found
    assert ("gemini.remote_server", "r") in found
    assert ("gemini.server_invalid", "none") in found
    assert ("gemini.hooks_not_run", "hooks") in found


def test_an_invalid_command_file_is_skipped_with_a_code(tmp_path: Path) -> None:
    entry = extension(tmp_path / "e", {"name": "e", "version": "1"},
                      **{"commands__ok.toml": 'prompt = "hi"', "commands__bad.toml": 'description = "x"',
                         "commands__broken.toml": "prompt = "})  # fmt: skip
    assert [c.name for c in entry.contributions if c.kind == "prompt"] == ["ok"]
    assert sum(d.code == "gemini.command_invalid" for d in entry.diagnostics) == 2


def test_command_names_follow_gemini_cli() -> None:
    assert command_name("commands/gcs/sync.toml") == "gcs:sync"
    assert command_name("commands/a b/c$d.toml") == "a_b:c_d"
    assert command_name(f"commands/{'x' * 60}.toml") == "x" * 47 + "..."


def test_args_expand_in_place_or_the_invocation_is_appended() -> None:
    assert expand("Say {{args}} twice: {{args}}", "hi", name="s") == "Say hi twice: hi"
    assert expand("Summarize.", "the notes", name="sum") == "Summarize.\n\n/sum the notes"
    assert expand("Summarize.", "", name="sum") == "Summarize."


def test_context_file_names_are_hydrated_before_they_are_checked(tmp_path: Path) -> None:
    """Gemini CLI hydrates the manifest first: ${/} is a separator, and ${extensionPath}
    makes the name absolute, which it refuses."""
    entry = extension(
        tmp_path / "e",
        {"name": "e", "version": "1", "contextFileName": ["docs${/}RULES.md",
                                                          "${extensionPath}/GEMINI.md"]},
        **{"docs__RULES.md": "rules", "GEMINI.md": "context"},
    )  # fmt: skip
    assert [c.name for c in entry.contributions if c.kind == "context_file"] == ["docs/RULES.md"]
    assert "absolute paths are not allowed" in codes(entry)["gemini.context_invalid"]


def test_a_server_command_naming_the_workspace_is_refused(tmp_path: Path) -> None:
    entry = extension(tmp_path / "e", {"name": "e", "version": "1", "mcpServers": {
        "w": {"command": "${workspacePath}/bin/server"},
        "ok": {"command": "true", "args": ["${workspacePath}"]}}})  # fmt: skip
    spec = GeminiAdapter().plan_launch(entry, tmp_path / "home")
    assert spec is not None
    refused = [d for d in spec.diagnostics if d.code == "gemini.server_invalid"]
    assert [d.contribution for d in refused] == ["w"]
    config = json.loads(Path(spec.command[-1]).read_text())
    assert list(config["servers"]) == ["ok"]
    assert config["servers"]["ok"]["args"] == ["${workspacePath}"]
    assert config["workspace_variable"] == "${workspacePath}"
