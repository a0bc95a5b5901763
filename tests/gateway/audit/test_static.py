"""Static audits (nothing runs): rows, cells, verdicts, targets, risks and batches, on real
packages from tests/fixtures/npm, the examples and small fixtures. The packed real packages'
audits are the run's one static audit of them (``_npm_audit``, shared with test_truth,
test_formats, test_html and test_malicious)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.audit import (
    GATEWAY,
    AuditReport,
    PackageAudit,
    Row,
    Status,
    audit,
    failures,
    parse_fail_on,
    read_sources,
)
from gateway.base import GatewayConfig

from ._npm_audit import npm_static_report

ROOT = Path(__file__).resolve().parents[3]
NPM = ROOT / "tests" / "fixtures" / "npm"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> GatewayConfig:
    base = tmp_path_factory.mktemp("audit")
    return GatewayConfig(home=base / "gateway", user_home=base)


@pytest.fixture(scope="module")
def packed(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, PackageAudit]:
    """The static audit of each packed real package (tests/fixtures/npm), by file name: the
    run's one static audit of them (``_npm_audit``), each package audited on its own as
    ``audit([tarball])`` audits it."""
    report = npm_static_report(tmp_path_factory, request)
    return {Path(p.source).name: p for p in report.packages}


def npm(name: str, packed: dict[str, PackageAudit]) -> PackageAudit:
    package = packed[name]
    assert package.ok, package.error
    return package


def one(source: Path | str, config: GatewayConfig) -> PackageAudit:
    report = audit([str(source)], config=config)
    assert len(report.packages) == 1
    package = report.packages[0]
    assert package.ok, package.error
    return package


def row(package: PackageAudit, kind: str, name: str) -> Row:
    found = [r for r in package.rows if r.kind == kind and r.name == name]
    assert found, [(r.kind, r.name) for r in package.rows]
    return found[0]


def test_a_tool_without_contracts_tools_is_refused_by_the_gateway_as_by_openclaw(packed):
    # The plugin declares no OpenClaw: loaded as 2026.9.6, which refuses it (since 2026.5.2).
    package = npm("ollama-openclaw-web-search-0.2.2.tgz", packed)
    tool = row(package, "tool", "ollama_web_search")
    assert tool.cells[GATEWAY].support.status is Status.UNSUPPORTED
    assert tool.cells[GATEWAY].support.code == "openclaw.tool_undeclared"
    assert tool.cells["openclaw"].support.status is Status.UNSUPPORTED
    assert tool.cells["openclaw"].support.code == "openclaw.tool_contract"
    assert tool.source == "index.ts:125"  # found in the code, with its line


def test_a_typescript_only_entry_is_partial_in_openclaw_2026_9(packed):
    package = npm("ollama-openclaw-web-search-0.2.2.tgz", packed)
    entry = row(package, "extension", "index.ts")
    assert entry.cells["openclaw"].support.code == "openclaw.entry_typescript"
    assert entry.cells[GATEWAY].support.status is Status.RUNS


def test_a_removed_openclaw_hook_is_ignored_by_the_gateway_as_by_current_openclaw(packed):
    # jasper declares no OpenClaw: loaded as 2026.9.6, which has no before_agent_start.
    package = npm("jasper-context-compactor-0.4.1.tgz", packed)
    hook = row(package, "hook", "before_agent_start")
    assert hook.cells["openclaw"].support.code == "openclaw.legacy_api"
    assert hook.cells["openclaw"].support.status is Status.UNSUPPORTED
    assert hook.cells[GATEWAY].support.status is Status.UNSUPPORTED
    assert hook.cells[GATEWAY].support.code == "openclaw.legacy_hook_removed"
    assert "before_prompt_build" in hook.cells[GATEWAY].support.reason


def test_a_gateway_method_is_unsupported_with_the_sidecars_code(packed):
    package = npm("jasper-context-compactor-0.4.1.tgz", packed)
    method = row(package, "gateway_method", "context-compactor.stats")
    assert method.cells[GATEWAY].support.code == "openclaw.unsupported_api"
    assert method.cells["openclaw"].support.status is Status.RUNS


def test_pi_loads_the_skills_folder_of_an_openclaw_plugin_by_its_conventions(packed):
    package = npm("mem0-openclaw-mem0-1.0.16.tgz", packed)
    skill = row(package, "skill", "memory-triage")
    assert skill.cells["pi"].support.status is Status.RUNS
    assert skill.cells[GATEWAY].support.status is Status.METADATA_ONLY
    assert skill.cells["nimlet"].support.code == "audit.foreign_package"


def test_a_memory_plugin_says_it_needs_the_memory_slot(packed):
    package = npm("mem0-openclaw-mem0-1.0.16.tgz", packed)
    slot = row(package, "memory", "memory slot")
    assert slot.cells["openclaw"].support.code == "openclaw.memory_slot"
    assert {t.api for t in package.targets} >= {"openclaw compat.pluginApi", "openclaw kind"}


def test_the_legacy_pi_scope_is_reported_as_a_target(packed):
    package = npm("pi-mermaid-0.3.0.tgz", packed)
    assert any("@mariozechner/pi-coding-agent" in t.value for t in package.targets)
    renderer = row(package, "api", "registerMessageRenderer")  # its name is a constant
    assert renderer.cells[GATEWAY].support.code == "pi.unsupported_api"
    assert renderer.cells["pi"].support.status is Status.RUNS
    assert renderer.cells["nanobot"].support.code == "nanobot.host_unsupported"


def test_an_unmapped_pi_event_is_unsupported_in_the_gateway_and_runs_in_pi(packed):
    package = npm("pi-prompt-template-model-0.12.2.tgz", packed)
    hook = row(package, "hook", "model_select")
    assert hook.cells[GATEWAY].support.code == "pi.event_unmapped"
    assert hook.cells["pi"].support.status is Status.RUNS
    mapped = row(package, "hook", "before_agent_start")
    assert mapped.cells[GATEWAY].support.status is Status.RUNS
    # nanobot's compatibility matrix: lifecycle events are observation only.
    assert mapped.cells["nanobot"].support.code == "nanobot.host_observe_only"


def test_nanobot_takes_no_pi_package_without_its_keyword_and_manifest(packed):
    package = npm("agentuity-pi-2.0.21.tgz", packed)  # no `pi` key, no keyword
    command = row(package, "command", "region")
    assert command.cells["nanobot"].support.code == "nanobot.host_not_discoverable"
    assert command.cells[GATEWAY].support.status is Status.RUNS


def test_only_code_reachable_from_the_entries_makes_rows(config):
    package = one(FIXTURES / "risky", config)
    names = {(r.kind, r.name) for r in package.rows}
    assert ("command", "deploy") in names and ("tool", "lookup") in names
    assert ("command", "debug-only") not in names  # unused/debug.js is never imported


def test_risk_signals_name_the_file_and_line(config):
    package = one(FIXTURES / "risky", config)
    kinds = {(r.kind, r.path) for r in package.risks}
    assert ("install_script", "package.json") in kinds
    assert ("child_process", "index.js") in kinds
    assert ("dynamic_code", "index.js") in kinds
    assert ("network", "lib/helper.js") in kinds
    secret = next(r for r in package.risks if r.kind == "undeclared_secret")
    assert "ACME_API_TOKEN" in secret.message and secret.line == 10


def test_a_declared_secret_is_not_an_undeclared_one(tmp_path, config):
    root = tmp_path / "pkg"
    (root / "pkg").mkdir(parents=True)
    manifest = {
        "id": "acme.keys", "name": "Keys", "version": "1.0.0", "runtime": "python", "entry": "pkg:register",
        "dependencies": [{"kind": "environment", "name": "ACME_API_KEY"}],
    }  # fmt: skip
    (root / "nanobot.extension.json").write_text(json.dumps(manifest))
    (root / "pkg" / "__init__.py").write_text(
        "import os\n\ndef register(api):\n    os.environ['ACME_API_KEY']\n    os.getenv('OTHER_SECRET_TOKEN')\n"
    )
    package = one(root, config)
    secrets = [r.message for r in package.risks if r.kind == "undeclared_secret"]
    assert len(secrets) == 1 and "OTHER_SECRET_TOKEN" in secrets[0]


def test_nimlet_formats_run_natively_and_nowhere_else(config):
    tool = one(ROOT / "examples" / ".nimlet" / "tools" / "wordcount", config)
    assert tool.verdicts[GATEWAY].status is Status.RUNS
    assert tool.verdicts["nimlet"].status is Status.RUNS
    assert tool.verdicts["pi"].status is Status.UNSUPPORTED
    skill = one(ROOT / "examples" / ".agents" / "skills" / "release-notes", config)
    assert skill.verdicts["nimlet"].status is Status.RUNS
    assert skill.verdicts[GATEWAY].status is Status.METADATA_ONLY


def test_nu_tools_and_extensions_run_in_the_gateway_and_unsupported_registrars_are_named(
    config,
):
    package = one(ROOT / "tests" / "nu" / "fixtures" / "standup", config)
    tool = row(package, "tool", "standup__post")
    assert tool.cells[GATEWAY].support.status is Status.RUNS
    assert tool.cells["nu"].support.status is Status.RUNS
    assert row(package, "hook", "tool_execution_end").cells[GATEWAY].support.reason == (
        "the Node sidecar's Nu host: canonical tool_result"
    )
    channel = row(package, "channel", "registerChannel").cells[GATEWAY].support
    assert (channel.status, channel.code) == (Status.UNSUPPORTED, "nu.unsupported_api")
    assert package.verdicts[GATEWAY].status is Status.PARTIAL


def test_a_package_that_cannot_be_fetched_is_a_row_and_the_batch_goes_on(tmp_path, config):
    report = audit([str(tmp_path / "missing"), str(NPM / "pi-aliases-1.0.7.tgz")], config=config)
    failed, audited = report.packages
    assert not failed.ok and failed.error is not None and failed.error.code == "audit.fetch_failed"
    assert audited.ok and audited.id == "pi-aliases"
    assert failures(report, []) == [f"{failed.source}: not audited: {failed.error.message}"]


def test_fail_on_gates_by_status_host_and_risk(config):
    report = audit([str(NPM / "pi-aliases-1.0.7.tgz"), str(FIXTURES / "risky")], config=config)
    assert failures(report, parse_fail_on(["unsupported"])) != []  # the risky shortcut
    partial = failures(report, parse_fail_on(["partial"]))
    assert any(line.startswith("pi-aliases 1.0.7: 2 partial on gateway") for line in partial)
    assert failures(report, parse_fail_on(["unsupported:pi"])) == []
    assert any("risk signal" in line for line in failures(report, parse_fail_on(["risk"])))


@pytest.mark.parametrize("value", ["sometimes", "unsupported:vscode", "risk:pi"])
def test_fail_on_refuses_what_it_does_not_know(value):
    with pytest.raises(ValueError, match="--fail-on"):
        parse_fail_on([value])


def test_a_sources_file_skips_comments_and_blank_lines(tmp_path):
    listing = tmp_path / "packages.txt"
    listing.write_text("# the public ones\n\n./a  # first\n  b@1.0\n")
    assert read_sources(listing) == ["./a", "b@1.0"]


def test_verdicts_summarise_the_rows(config):
    package = one(NPM / "pi-aliases-1.0.7.tgz", config)
    verdict = package.verdicts[GATEWAY]
    assert verdict.status is Status.PARTIAL  # commands run; newSession/shutdown are host actions
    assert verdict.counts == {"runs": 3, "partial": 2}
    assert isinstance(AuditReport("static", "g", [package]).summary()["verdicts"], dict)


def test_a_gateway_only_argument_of_the_nanobot_api_fails_in_nanobot_and_runs_here(
    tmp_path, config
):
    root = tmp_path / "pkg"
    (root / "pkg").mkdir(parents=True)
    manifest = {
        "id": "acme.hooks", "name": "Hooks", "version": "1.0.0", "apiVersion": 1, "runtime": "python",
        "entry": "pkg:register", "contributions": [{"kind": "hook", "name": "stamp"}],
    }  # fmt: skip
    (root / "nanobot.extension.json").write_text(json.dumps(manifest))
    (root / "pkg" / "__init__.py").write_text(
        "def stamp(context):\n    return None\n\n"
        "def register(api):\n    api.register_hook_factory(stamp, name='stamp')\n    api.logger.info('hi')\n"
    )
    package = one(root, config)
    named = row(package, "api", "register_hook_factory(name=)")
    assert named.cells["nanobot"].support.code == "nanobot.gateway_only_api"
    assert named.cells["nanobot"].support.status is Status.UNSUPPORTED
    assert named.cells[GATEWAY].support.status is Status.RUNS
    assert row(package, "api", "api.logger").cells["nanobot"].support.status is Status.UNSUPPORTED


def test_the_bundled_nanobot_example_uses_only_nanobots_api(config):
    package = one(ROOT / "examples" / "packages" / "acme-review", config)
    assert not [
        r for r in package.rows if r.cells["nanobot"].support.code == "nanobot.gateway_only_api"
    ]
    assert package.verdicts["nanobot"].status is Status.RUNS


@pytest.mark.parametrize(
    ("peer", "code"), [(">=2026.4.0", "openclaw.hook_not_in_version"), (">=2026.9.0", None)]
)
def test_a_hook_the_declared_openclaw_lacks_is_unsupported_in_the_gateway(
    config, tmp_path, peer, code
):
    # OpenClaw 2026.4.29 (a plugin declaring 2026.4 is loaded as it) has no reply_payload_sending.
    root = tmp_path / "p"
    root.mkdir()
    package = {
        "name": "p",
        "version": "1.0.0",
        "type": "module",
        "peerDependencies": {"openclaw": peer},
    }
    (root / "package.json").write_text(
        json.dumps({**package, "openclaw": {"extensions": ["./index.js"]}})
    )
    (root / "openclaw.plugin.json").write_text(
        json.dumps({"id": "p", "configSchema": {"type": "object"}})
    )
    (root / "index.js").write_text(
        'export default { id: "p", register(api) { api.on("reply_payload_sending", () => {}); } };\n'
    )
    cell = row(one(root, config), "hook", "reply_payload_sending").cells[GATEWAY].support
    if code is None:
        assert cell.status is Status.RUNS
    else:
        assert cell.status is Status.UNSUPPORTED and cell.code == code
        assert "OpenClaw 2026.4.29" in cell.reason and "declares OpenClaw 2026.4.0" in cell.reason
