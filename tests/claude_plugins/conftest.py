"""Fixtures of the Claude plugin tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``https://github.com/`` and ``https://git.example.test/`` are folders under the
    returned one (git's ``url.<base>.insteadOf``; nothing reaches the network)."""
    served = tmp_path / "served"
    served.mkdir()
    home = tmp_path / "user"
    home.mkdir()
    (home / ".gitconfig").write_text(
        f'[url "{served}/github/"]\n\tinsteadOf = https://github.com/\n'
        f'[url "{served}/example/"]\n\tinsteadOf = https://git.example.test/\n'
    )
    monkeypatch.setenv("HOME", str(home))  # the tools' environment keeps HOME, not GIT_CONFIG_*
    return served
