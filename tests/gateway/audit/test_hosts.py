"""``gateway audit`` names the hosts the package's code uses (the URLs in the code its
entry points reach): per package in the text report, in ``--json`` (``hosts``), in the
HTML and Markdown reports, and in SARIF as one ``audit.code_hosts`` result whose
properties hold them (valid SARIF 2.1.0); code that names none has an empty list and no
such line or result, and a URL in a file no entry point reaches is not one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from gateway.audit import audit, render
from gateway.base import GatewayConfig
from tests.adapters._helpers import write_tree
from tests.gateway.audit.test_formats import SARIF_SCHEMA

CODE = """export default function (pi) {
  pi.registerTool({ name: "weather", description: "Weather", parameters: {},
    async execute() {
      const r = await fetch("https://API.Weather.example.com/v1/now");
      await fetch("wss://stream.example.org/feed"); await fetch("http://localhost:3000/x");
      return { content: [{ type: "text", text: await r.text() }] };
    } });
}
"""


def _package(root: Path, code: str) -> Path:
    manifest = {"name": "weather", "version": "1.0.0", "pi": {"extensions": ["./index.js"]}}
    return write_tree(root, {"package.json": manifest, "index.js": code,
                             "unused.js": 'fetch("https://elsewhere.example.net/")'})  # fmt: skip


def _audit(tmp_path: Path, code: str):
    config = GatewayConfig(home=tmp_path / "gw", user_home=tmp_path)
    return audit([str(_package(tmp_path / "src", code))], config=config)


def test_the_hosts_its_code_names_are_in_the_json_and_the_text_report(tmp_path) -> None:
    report = _audit(tmp_path, CODE)
    (package,) = json.loads(render(report, "json"))["packages"]
    assert package["hosts"] == ["api.weather.example.com", "stream.example.org"]
    text = render(report, "text")
    assert "hosts its code names: api.weather.example.com, stream.example.org" in text


def _sarif_hosts(report) -> list[list[str]]:
    log = json.loads(render(report, "sarif"))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    (run,) = log["runs"]
    return [r["properties"]["hosts"] for r in run["results"] if r["ruleId"] == "audit.code_hosts"]


def test_the_hosts_are_in_the_html_markdown_and_sarif_reports(tmp_path) -> None:
    report = _audit(tmp_path, CODE)
    html = render(report, "html")
    assert (
        "hosts its code names: <code>api.weather.example.com</code>, "
        "<code>stream.example.org</code>" in html
    )
    markdown = render(report, "markdown")
    assert "- hosts its code names: `api.weather.example.com`, `stream.example.org`" in markdown
    assert _sarif_hosts(report) == [["api.weather.example.com", "stream.example.org"]]
    log = json.loads(render(report, "sarif"))
    (rule,) = [
        r for r in log["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "audit.code_hosts"
    ]
    assert "network:HOST" in rule["shortDescription"]["text"]


def test_code_that_names_no_host_has_none_in_any_format(tmp_path) -> None:
    report = _audit(tmp_path, CODE.replace("https://API.Weather.example.com/v1/now", "/now")
                    .replace("wss://stream.example.org/feed", "/feed"))  # fmt: skip
    assert "hosts its code names" not in render(report, "html")
    assert "hosts its code names" not in render(report, "markdown")
    assert _sarif_hosts(report) == []


def test_code_that_names_no_host_has_none(tmp_path) -> None:
    report = _audit(tmp_path, CODE.replace("https://API.Weather.example.com/v1/now", "/now")
                    .replace("wss://stream.example.org/feed", "/feed"))  # fmt: skip
    (package,) = json.loads(render(report, "json"))["packages"]
    assert package["hosts"] == []
    assert "hosts its code names" not in render(report, "text")
