"""Names a typo away from popular packages: dependencies warned, the package's own name
information, and the popular names themselves (and names far from any) never."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.audit._typosquat import one_typo_away, typosquat_risks


@pytest.mark.parametrize(
    ("name", "popular"),
    [("expresss", "express"), ("lodahs", "lodash"), ("reqeusts", "requests"),
     ("axois", "axios"), ("chalc", "chalk"), ("dotnev", "dotenv"), ("rect", "react")],
)  # fmt: skip
def test_one_typo_away(name: str, popular: str) -> None:
    assert one_typo_away(name, popular)


@pytest.mark.parametrize(
    ("name", "popular"),
    [("express", "express"), ("expressive", "express"), ("lodash-es", "lodash"),
     ("wss", "ws"), ("requests-oauthlib", "requests")],
)  # fmt: skip
def test_not_a_typo(name: str, popular: str) -> None:
    assert not one_typo_away(name, popular)


def _package(root: Path, dependencies: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    manifest = {"name": "p", "version": "1.0.0", "dependencies": dependencies}
    (root / "package.json").write_text(json.dumps(manifest))
    return root


def test_a_dependency_a_typo_away_is_a_warning_and_the_real_one_is_not(tmp_path: Path) -> None:
    root = _package(tmp_path / "a", {"expresss": "^4", "lodash": "^4", "left-pad": "1"})
    (risk,) = typosquat_risks(root, "p")
    assert risk.code == "audit.typosquat" and risk.severity == "warning"
    assert "'expresss'" in risk.message and "'express'" in risk.message


def test_the_packages_own_name_a_typo_away_is_information(tmp_path: Path) -> None:
    (risk,) = typosquat_risks(_package(tmp_path / "b", {}), "axois")
    assert risk.severity == "info"
    assert typosquat_risks(_package(tmp_path / "c", {}), "axios-retry-helper") == []
