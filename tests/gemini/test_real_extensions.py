"""A real, published Gemini CLI extension (``gemini-cli-extensions/code-review``, Apache-2.0,
tests/fixtures/gemini-upstream/README.md) read as Gemini CLI reads it: its context file, its
command named and expanded by Gemini CLI's rules, its shell injection reported, not run."""

from __future__ import annotations

from pathlib import Path

from adapters.gemini import GeminiAdapter

CODE_REVIEW = Path(__file__).resolve().parents[1] / "fixtures" / "gemini-upstream" / "code-review"


def test_code_review_is_read_with_its_context_file_and_command() -> None:
    adapter = GeminiAdapter()
    entry = adapter.inspect(CODE_REVIEW)
    assert entry.ok and (entry.id, entry.version) == ("code-review", "0.1.0")
    kinds = {(c.kind, c.name) for c in entry.contributions}
    assert kinds == {("context_file", "GEMINI.md"), ("prompt", "code-review")}
    resources = adapter.package_resources(entry)
    assert [s.name for s in resources.skills] == ["code-review:GEMINI.md"]
    [command] = resources.prompts
    assert command.expand is not None
    assert command.expand(command.body, "focus on tests").endswith("/code-review focus on tests")
    assert entry.diagnostics == []
