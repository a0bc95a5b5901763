"""The minimatch-style glob used for Pi and Nu manifest patterns."""

from __future__ import annotations

import pytest

from adapters._glob import expand_braces, has_magic, match


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("tools/*/tool.yaml", "tools/search/tool.yaml", True),
        ("tools/*/tool.yaml", "tools/a/b/tool.yaml", False),
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "src/a/b/c.ts", True),
        ("**/*.test.ts", "a.test.ts", True),
        ("**/*.test.ts", "x/y/a.test.ts", True),
        ("src/**", "src/a/b", True),
        ("./src/*.ts", "src/a.ts", True),
        ("src/?.ts", "src/a.ts", True),
        ("src/?.ts", "src/ab.ts", False),
        ("src/[ab].ts", "src/b.ts", True),
        ("src/[!ab].ts", "src/b.ts", False),
        ("src/*.{ts,js}", "src/a.js", True),
        ("src/*.{ts,js}", "src/a.mjs", False),
        ("src/a.ts", "src/a.ts", True),
        ("src/a.ts", "src/a_ts", False),
        ("src/[z-a].ts", "src/a.ts", False),  # invalid range matches nothing
        ("src/[.ts", "src/[.ts", True),  # an unclosed class is literal
        ("src/[:--].ts", "src/-.ts", True),  # a doubled dash is literal (no set operation)
        ("src/[:--].ts", "src/+.ts", False),
    ],
)
def test_glob_match(pattern: str, path: str, expected: bool) -> None:
    assert match(pattern, path) is expected


def test_glob_magic_detection() -> None:
    assert has_magic("a/*.ts") and has_magic("a/{b,c}") and not has_magic("a/b.ts")


def test_brace_expansion_is_capped() -> None:
    assert expand_braces("{a,b}/{c,d}") == ["a/c", "a/d", "b/c", "b/d"]
    assert len(expand_braces("{a,b}" * 20)) == 64
