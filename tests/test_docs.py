"""The docs' code runs: every fenced block that is a complete program or a CLI session is
marked, and each marked block runs here, the way a reader would run it.

A marker is an HTML comment on the line before the fence (invisible when rendered):

- ``<!-- docs-test: program cwd=FOLDER -->`` before a Python block: run as a script in a
  fresh copy of ``FOLDER`` (relative to the repository; a temporary empty folder without
  ``cwd``), with a private ``HOME`` and ``GATEWAY_HOME``; it must exit 0.
- ``<!-- docs-test: session cwd=FOLDER -->`` before a shell block: each ``$ command`` line
  runs in the same way, ``gateway`` (or ``.venv/bin/gateway``) being this checkout's CLI; it
  must exit 0, and the lines after it, when there are any, must appear in its output in
  order (``...`` skips lines). A block without ``$`` runs as one script (``set -e``), in
  the warm session a reader's terminal gets (``GATEWAY_SESSION=on``, docs/session.md).
- ``<!-- docs-test: skip REASON -->``: not run, and the reason says why (e.g. it installs
  from the network, or ``.ci/run`` runs it).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(2)  # measured long: scheduled first (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "examples" / "README.md", *(ROOT / "docs").rglob("*.md")]
)
# Read for their links only: their code blocks are a record, not a reader's steps.
LINKED = sorted([*DOCUMENTS, ROOT / "CHANGELOG.md"])
_FENCE = re.compile(r"^```(\w*)\s*$")
_MARKER = re.compile(r"^<!--\s*docs-test:\s*(\w+)\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    document: Path
    line: int
    language: str
    text: str
    marker: str | None
    options: str

    @property
    def name(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"

    @property
    def cwd(self) -> str | None:
        found = re.search(r"\bcwd=(\S+)", self.options)
        return found.group(1) if found else None

    @property
    def copies(self) -> list[str]:
        found = re.search(r"\bcopy=(\S+)", self.options)
        return found.group(1).split(",") if found else []

    @property
    def is_program(self) -> bool:
        return self.language == "python" and (
            "anyio.run(" in self.text or "asyncio.run(" in self.text or "__main__" in self.text
        )

    @property
    def is_session(self) -> bool:
        return self.language in ("sh", "console", "shell", "bash")


def _blocks(document: Path) -> list[Block]:
    lines = document.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        marker = _MARKER.match(lines[index - 1]) if index else None
        found.append(
            Block(
                document,
                index + 1,
                opening.group(1),
                "\n".join(lines[index + 1 : end]) + "\n",
                marker.group(1) if marker else None,
                marker.group(2) if marker else "",
            )
        )
        index = end + 1
    return found


ALL_BLOCKS = [block for document in DOCUMENTS for block in _blocks(document)]
PROGRAMS = [block for block in ALL_BLOCKS if block.marker == "program"]
SESSIONS = [block for block in ALL_BLOCKS if block.marker == "session"]


def _place(block: Block, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    cwd = tmp_path / "work"
    if block.cwd:
        shutil.copytree(ROOT / block.cwd, cwd, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        cwd.mkdir()
    for folder in block.copies:
        shutil.copytree(ROOT / folder, cwd / folder, ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "GATEWAY_HOME": str(home / ".gateway"),
        "PYTHONPATH": str(ROOT),
    }
    return cwd, env


def test_the_reader_finds_the_marked_blocks():
    assert any(block.document.name == "embedding.md" for block in PROGRAMS)
    assert all(block.marker in (None, "program", "session", "skip") for block in ALL_BLOCKS)


def test_every_complete_program_and_cli_session_is_marked():
    unmarked = [
        block.name
        for block in ALL_BLOCKS
        if (block.is_program or block.is_session) and not block.marker
    ]
    assert unmarked == []


_LINK = re.compile(r"\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)|^\[[^\]]+\]:\s*(\S+)", re.M)
_CODE_SPAN = re.compile(r"(`+).+?\1")
_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")


def _prose(document: Path) -> list[str]:
    """The document's lines outside fenced code, inline code spans blanked."""
    kept: list[str] = []
    fenced = False
    for line in document.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            kept.append("")
            continue
        kept.append("" if fenced else line)
    return kept


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    return "".join(c for c in text if c.isalnum() or c in "-_ ").replace(" ", "-")


def _anchors(document: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in _prose(document):
        found.update(_ANCHOR.findall(line))
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = _slug(heading.group(1))
            found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
            seen[slug] = seen.get(slug, 0) + 1
    return found


def test_every_relative_link_and_anchor_resolves():
    broken: list[str] = []
    for document in LINKED:
        text = "\n".join(_CODE_SPAN.sub("``", line) for line in _prose(document))
        for match in _LINK.finditer(text):  # a link's text may run over lines
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            linked = (document.parent / path).resolve() if path else document
            number = text.count("\n", 0, match.end()) + 1
            where = f"{document.relative_to(ROOT)}:{number}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{where} (no such heading)")
    assert not broken, "\n".join(broken)


def test_a_skipped_block_says_why():
    silent = [block.name for block in ALL_BLOCKS if block.marker == "skip" and not block.options]
    assert silent == []


@pytest.mark.parametrize("block", PROGRAMS, ids=lambda block: block.name)
def test_the_program_runs(block: Block, tmp_path: Path):
    cwd, env = _place(block, tmp_path)
    script = tmp_path / "program.py"
    script.write_text(block.text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _expect_in_order(expected: list[str], output: str) -> None:
    lines = output.splitlines()
    at = 0
    for wanted in expected:
        if wanted.strip() == "...":
            continue
        while at < len(lines) and lines[at].rstrip() != wanted.rstrip():
            at += 1
        assert at < len(lines), f"{wanted!r} not found, in order, in:\n{output}"
        at += 1


@pytest.mark.parametrize("block", SESSIONS, ids=lambda block: block.name)
def test_the_cli_session_runs(block: Block, tmp_path: Path):
    cwd, env = _place(block, tmp_path)
    gateway = f"{shlex.quote(sys.executable)} -m gateway"
    command: str | None = None
    expected: list[str] = []

    def run() -> None:
        assert command is not None
        line = re.sub(r"^(\.venv/bin/)?gateway\b", gateway, command)
        done = subprocess.run(
            ["bash", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, f"$ {command}\n{done.stdout}{done.stderr}"
        _expect_in_order(expected, done.stdout)

    if not any(line.startswith("$ ") for line in block.text.splitlines()):
        # A plain block is one script, as a reader pastes it into a terminal: exports and
        # `&&` carry on, and `list`, `call` and `command` run in the warm session a terminal
        # gets (docs/session.md), stopped when the script ends. One-shot runs of the same
        # workspace are tests/test_seven_formats.py's.
        script = "set -euo pipefail\n" + f'gateway() {{ {gateway} "$@"; }}\n'
        script += "trap 'gateway session stop --all >/dev/null 2>&1' EXIT\n"
        script += re.sub(r"(?m)^\.venv/bin/gateway\b", "gateway", block.text)
        terminal = {**env, "GATEWAY_SESSION": "on", "GATEWAY_SESSION_IDLE": "120"}
        done = subprocess.run(
            ["bash", "-c", script], cwd=cwd, env=terminal, capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert "cli.session_unreachable" not in done.stderr, done.stderr  # not one-shot
        return
    for line in block.text.splitlines():
        if line.startswith("$ "):
            if command is not None:
                run()
            command, expected = line[2:], []
        elif command is not None and line.strip():
            expected.append(line)
    if command is not None:
        run()
