"""Preparing an installed package to run is said only for a format that prepares anything
(Pi and OpenClaw compile their modules): a nanobot package's install said "preparing it to
run (e.g. compiling its TypeScript …)" too."""

from __future__ import annotations

import functools
from pathlib import Path

from gateway.packages import install, load_adapters, prepare_install
from tests.gateway.packages._helpers import REPO

PI = REPO / "tests" / "fixtures" / "npm" / "pi-aliases-1.0.7.tgz"
NANOBOT = REPO / "examples" / "packages" / "acme-review"


def _said(home: Path, source: Path, kind: str) -> list[str]:
    adapters, lines = load_adapters(), []
    prepare = functools.partial(prepare_install, adapters, home, progress=lines.append)
    install(home, str(source), kind=kind, inspector=adapters.inspect,
            progress=lines.append, prepare=prepare)  # fmt: skip
    return lines


def test_a_package_that_is_compiled_says_so_by_its_id(tmp_path: Path) -> None:
    said = _said(tmp_path / "home", PI, "npm")
    assert "preparing pi-aliases to run (compiling its modules; nothing of it runs)" in said


def test_a_package_with_nothing_to_prepare_says_nothing_of_it(tmp_path: Path) -> None:
    said = _said(tmp_path / "home", NANOBOT, "local")
    assert said and not [line for line in said if "prepar" in line or "compil" in line]
