"""The grant hints' patterns are written for speed (``gateway/sandbox/_hints.py``: each
alternative starts with a literal character, a word's leading ``\\b`` as a lookbehind after
its first letter, the network pattern's line-anchored Python imports a regex of their own).
Here are their plain forms, as first written: the fast ones find the same match — the same
place, the same text — in any text made of the words they look for."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.sandbox._hints import _PATTERNS, _PROTECTED

_NET = r"(?:node:)?(?:https?|http2|net|tls|dgram)|undici|axios|node-fetch|got|ws|ky"
_PY = r"requests|httpx|aiohttp|urllib3|urllib\.request|socket|http\.client|websockets"
PLAIN = {
    "network use": re.compile(
        r"\bfetch\s*\(|new\s+WebSocket\s*\(|XMLHttpRequest"
        rf"|require\(\s*['\"](?:{_NET})['\"]\s*\)"
        rf"|\bfrom\s+['\"](?:{_NET})['\"]"
        rf"|^\s*(?:import\s+(?:{_PY})\b|from\s+(?:{_PY})\b\S*\s+import)", re.MULTILINE),
    "file writes": re.compile(
        r"\b(?:fs|fsp|promises)\.(?:writeFile|appendFile|mkdir|rm|unlink|rename|copyFile|cp)"
        r"(?:Sync)?\s*\(|\b(?:writeFile|appendFile|createWriteStream)\s*\("
        r"|\b(?:mkdir|rm|unlink|rename|copyFile)Sync\s*\("
        r"|\.write_text\s*\(|\.write_bytes\s*\(|\bopen\([^)\n]*['\"][wax]b?\+?['\"]"
        r"|\bos\.(?:remove|unlink|rename|makedirs|mkdir)\s*\(|\bshutil\.(?:copy|move|rmtree)"),
    "reads of the user's home": re.compile(
        r"os\.homedir\s*\(|process\.env\.HOME\b|['\"]~/|expanduser\s*\(|Path\.home\s*\("),
    "protected": re.compile(
        r"\.git/(?:hooks|config)\b|\bpre-commit\b|\.envrc\b|\.vscode/|\.idea/|\.github/workflows"
        r"|\bMakefile\b|\.(?:pi|agents|nimlet|claude|openclaw)/|\.(?:bash|zsh)rc\b|\.profile\b"),
}  # fmt: skip

# Every word the patterns name, pieces of them, and what sits around them in code: a word
# glued to a letter before it (``xfetch(``) must not match where ``\b`` would refuse it.
WORDS = [
    "fetch", "new", "WebSocket", "XMLHttpRequest", "require", "from", "import", "fs", "fsp",
    "promises", "writeFile", "appendFile", "mkdir", "rm", "unlink", "rename", "copyFile", "cp",
    "Sync", "createWriteStream", "write_text", "write_bytes", "open", "os", "shutil", "copy",
    "move", "rmtree", "remove", "makedirs", "homedir", "process", "env", "HOME", "expanduser",
    "Path", "home", "node:", "https", "http2", "net", "tls", "undici", "axios", "node-fetch",
    "got", "ws", "ky", "requests", "httpx", "urllib.request", "socket", "http.client",
    "websockets", "pre-commit", "Makefile", ".git/hooks", ".git/config", ".envrc", ".vscode/",
    ".github/workflows", ".pi/", ".claude/", ".bashrc", ".profile", "~/", "w", "wb+", "a",
    "x", "r", "(", ")", ".", "'", '"', " ", "  ", "\n", "\n  ", "_", "$", "é", "9", "f", "e",
]  # fmt: skip
texts = st.lists(st.sampled_from(WORDS), max_size=40).map("".join)


def _found(match: re.Match[str] | None) -> tuple[int, str] | None:
    return None if match is None else (match.start(), match.group(0))


@settings(max_examples=400, deadline=None)
@given(texts)
def test_the_fast_patterns_find_what_their_plain_forms_find(text: str) -> None:
    for pattern in _PATTERNS:
        assert _found(pattern.search(text)) == _found(PLAIN[pattern.what].search(text))
    assert _found(_PROTECTED.search(text)) == _found(PLAIN["protected"].search(text))


def test_a_word_glued_to_the_one_before_is_not_a_call() -> None:
    writes = next(p for p in _PATTERNS if p.what == "file writes")
    network = next(p for p in _PATTERNS if p.what == "network use")
    assert writes.search("prefs.mkdir(x)") is None  # `fs` inside `prefs`
    assert _found(writes.search("fs.mkdir(x)")) == (0, "fs.mkdir(")
    assert network.search("prefetch(url)") is None
    text = "x = 1\n  import requests\nfetch(u)"  # the line-anchored import comes first
    assert _found(network.search(text)) == (6, "  import requests")
    assert _PROTECTED.search("GNUMakefile") is None and _PROTECTED.search("a Makefile") is not None
