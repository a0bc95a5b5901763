"""The catalogue of diagnostic codes: every code is declared in a ``_codes.py`` the catalogue
finds, and docs/diagnostics.md is the catalogue rendered (``python -m gateway.base.codes
--markdown``)."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.base import Diagnostic, Diagnostics, Severity, catalogue, find_code
from gateway.base.codes import CATALOGUE_MODULE, SECTIONS, declaring_modules, markdown

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "diagnostics.md"


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


@functools.cache
def declarations() -> dict[str, str]:
    """Every ``define_code("...")`` call in gateway/ and adapters/: code -> module. (Read once
    for the module's tests; a file that does not name ``define_code`` has no such call.)"""
    found: dict[str, str] = {}
    for package in ("gateway", "adapters"):
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "define_code" not in text:
                continue
            for node in ast.walk(ast.parse(text)):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "define_code"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    assert node.args[0].value not in found, f"{node.args[0].value} declared twice"
                    found[node.args[0].value] = _module_name(path)
    return found


def test_the_page_is_the_catalogue_rendered():
    assert DOC.read_text(encoding="utf-8") == markdown(), (
        "docs/diagnostics.md is out of step: python -m gateway.base.codes --markdown > "
        "docs/diagnostics.md"
    )


def test_every_code_is_declared_in_a_codes_module():
    elsewhere = {
        code: module
        for code, module in declarations().items()
        if module.rpartition(".")[2] != CATALOGUE_MODULE
    }
    assert elsewhere == {}


def test_the_catalogue_finds_every_module_that_declares_codes():
    assert set(declarations().values()) == set(declaring_modules())
    assert {code: entry.module for code, entry in catalogue().items()} == declarations()


def test_every_section_of_the_page_has_a_title_and_every_title_a_section():
    prefixes = {code.split(".")[0] for code in catalogue()}
    assert prefixes - set(SECTIONS) == set()
    assert set(SECTIONS) - prefixes == set()


def test_a_code_is_found_by_name_without_importing_its_package_first():
    # A runtime reports a code of an adapter nothing in this process has imported yet.
    script = (
        "import sys; from gateway.base import find_code; "
        "assert 'adapters' not in sys.modules; "
        "code = find_code('sidecar.name_conflict'); "
        "assert code is not None and code.severity == 'warning', code; "
        "assert find_code('no.such_code') is None"
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)


def test_a_diagnostic_with_an_uncatalogued_code_cannot_be_made():
    with pytest.raises(ValueError, match="not in the catalogue"):
        Diagnostic("no.such_code", Severity.WARNING, "message")
    assert find_code("no.such_code") is None


def test_diagnostics_collector_keeps_order_and_reports_new_items():
    seen: list[str] = []
    collected = Diagnostics(listener=lambda d: seen.append(d.code))
    code = next(iter(catalogue()))
    collected.add(Diagnostic(code, Severity.INFO, "one"))
    mark = len(collected)
    collected.add(Diagnostic(code, Severity.INFO, "two"))
    assert [d.message for d in collected.since(mark)] == ["two"]
    assert seen == [code, code]
