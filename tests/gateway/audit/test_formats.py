"""Every format from one model: JSON valid against docs/audit-schema.json, SARIF valid
against the official SARIF 2.1.0 schema (tests/fixtures/sarif), Markdown and text readable
with the codes, and a batch with a failed package in each."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from gateway.audit import SCHEMA_ID, AuditReport, audit, render
from gateway.base import GatewayConfig

from ._npm_audit import NPM_TARBALLS, joined, npm_static_report

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "docs" / "audit-schema.json").read_text())
SARIF_SCHEMA = json.loads(
    (ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text()
)
OTHERS = [
    str(ROOT / "examples" / "packages" / "acme-review"),
    str(ROOT / "examples" / ".nimlet" / "extensions" / "notes"),
    str(ROOT / "examples" / ".nimlet"),
    str(Path(__file__).parent / "fixtures" / "risky"),
    "./no/such/package",
]
SOURCES = [*(str(path) for path in NPM_TARBALLS), *OTHERS]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> AuditReport:
    """The audit of SOURCES: the real packages' (made once per run) and the others'."""
    base = tmp_path_factory.mktemp("formats")
    others = audit(OTHERS, config=GatewayConfig(home=base / "gateway", user_home=base))
    return joined(npm_static_report(tmp_path_factory, request), others)


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$id"] == SCHEMA_ID


def test_the_json_report_is_valid_against_the_schema(report):
    data = json.loads(render(report, "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["summary"]["packages"] == len(SOURCES)
    assert data["summary"]["failed"] == 1


def test_the_schema_refuses_a_report_with_an_unknown_status(report):
    data = json.loads(render(report, "json"))
    first = next(p for p in data["packages"] if p["rows"])
    first["rows"][0]["cells"]["gateway"]["status"] = "works"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(SCHEMA).validate(data)


def test_the_sarif_log_is_valid_sarif_2_1_0(report):
    log = json.loads(render(report, "sarif"))
    jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    results = log["runs"][0]["results"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert {r["ruleId"] for r in results} == {r["id"] for r in rules}
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    # A postinstall is a warning; a package's own `prepare` (build tooling) a note.
    scripts = {
        r["message"]["text"]: r["level"] for r in results if r["ruleId"] == "audit.install_script"
    }
    assert {"postinstall" in text for text in scripts} == {True, False}
    assert all((level == "warning") == ("postinstall" in text) for text, level in scripts.items())
    located = [r for r in results if r["ruleId"] == "pi.event_unmapped"]
    assert located and located[0]["locations"][0]["physicalLocation"]["region"]["startLine"] > 1


def test_markdown_has_a_summary_row_per_package_and_the_codes(report):
    text = render(report, "markdown")
    summary = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(summary) >= len(SOURCES)
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert not any("`openclaw.tool_contract`" in row for row in rows)  # the gateway runs them
    assert "OpenClaw 2026.11, 2026.10, 2026.9.36 LTS (`openclaw.tool_contract`)" in text
    assert "`pi.event_unmapped`" in text and "not audited" in text


def test_text_names_each_status_and_the_failure(report):
    text = render(report, "text")
    assert "✗ ./no/such/package: not audited [audit.fetch_failed]" in text
    assert "pi.event_unmapped" in text and "summary" in text


def test_an_unknown_format_is_refused(report):
    with pytest.raises(ValueError, match="unknown format"):
        render(report, "pdf")
