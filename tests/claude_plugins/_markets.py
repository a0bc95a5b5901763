"""Git repositories and Claude Code marketplaces made for the marketplace tests, and git's
``insteadOf`` that serves ``https://github.com/`` and ``https://git.example.test/`` from
folders (nothing reaches the network)."""

from __future__ import annotations

import json
from pathlib import Path

from gateway.packages import install, load_adapters
from tests.gateway.packages._helpers import git

__all__ = [
    "git_market",
    "install_source",
    "marketplace_files",
    "plugin",
    "push",
    "repository",
    "write",
]


def install_source(home: Path, source: str) -> None:
    install(home, source, kind=None, inspector=load_adapters().inspect)


def write(root: Path, files: dict[str, object]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))


def plugin(name: str, version: str = "1.0.0") -> dict[str, object]:
    return {
        ".claude-plugin/plugin.json": {"name": name, "version": version},
        f"commands/{name}.md": f"Do {name} {version}.\n",
    }


def repository(where: Path, files: dict[str, object]) -> Path:
    """A bare repository ``where`` (named ``*.git``) holding ``files`` on ``main``."""
    work = where.with_name(where.name.removesuffix(".git") + "-work")
    work.mkdir(parents=True)
    git(work, "init", "-q")
    write(work, files)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "first")
    git(where.parent, "clone", "-q", "--bare", str(work), str(where))
    return work


def push(work: Path, bare: Path, files: dict[str, object], tag: str | None = None) -> str:
    write(work, files)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "next")
    if tag:
        git(work, "tag", tag)
    git(work, "push", "-q", "--tags", str(bare), "HEAD:main")
    return git(work, "rev-parse", "HEAD")


def marketplace_files(plugins: list[dict[str, object]]) -> dict[str, object]:
    return {".claude-plugin/marketplace.json": {"name": "market", "plugins": plugins}}


def git_market(tmp_path: Path) -> Path:
    bare = tmp_path / "market.git"
    work = repository(bare, {**marketplace_files([{"name": "notes", "source": "./plugins/notes"}])})
    push(work, bare, {f"plugins/notes/{k}": v for k, v in plugin("notes").items()}, "v1")
    push(work, bare, {f"plugins/notes/{k}": v for k, v in plugin("notes", "2.0.0").items()})
    return bare
