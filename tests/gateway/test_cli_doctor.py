"""`gateway doctor`: one line per check, ok/warn/fail with the fix, exit 1 only on a failure;
a broken home is failed checks, never a traceback (issue 22)."""

from __future__ import annotations

import json
import os
import stat
from typing import Any

import pytest

from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests._cli import run_here
from tests.gateway.test_cli import gateway


def doctor(workspace: Any) -> tuple[int, dict[str, dict[str, str]]]:
    done = gateway(workspace, "doctor", "--json")
    assert "Traceback" not in done.stderr, done.stderr
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    return done.returncode, checks


def test_a_missing_home_is_a_warning_naming_setup_and_is_not_made(workspace):
    code, checks = doctor(workspace)
    assert checks["home"]["status"] == "warn"
    assert checks["home"]["fix"] == "gateway setup"
    assert "state store" not in checks
    assert not workspace.config.home.exists()
    assert code == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)


def test_every_check_is_ok_warn_or_fail_and_each_non_ok_names_a_fix(workspace):
    workspace.config.home.mkdir()
    _, checks = doctor(workspace)
    assert {"python", "gateway", "node", "node environment", "sandbox", "cgroups"} <= set(checks)
    assert {"home", "state store", "settings", "disk"} <= set(checks)
    for check in checks.values():
        assert check["status"] in ("ok", "warn", "fail")
        assert check["status"] == "ok" or check["fix"], check


def test_the_sidecar_check_comes_from_the_adapters_entry_point(workspace):
    _, checks = doctor(workspace)
    assert "node sidecar" in checks


def test_a_store_that_is_not_sqlite_fails_with_the_command_that_moves_it_aside(workspace):
    home = workspace.config.home
    home.mkdir()
    (home / "state.sqlite3").write_text("not a database")
    code, checks = doctor(workspace)
    assert code == 1
    assert checks["state store"]["status"] == "fail"
    assert (
        checks["state store"]["fix"].startswith("mv ") and ".broken" in checks["state store"]["fix"]
    )
    assert (home / "state.sqlite3").read_text() == "not a database"


def test_corrupt_json_in_the_home_is_a_failed_check_naming_the_file(workspace):
    home = workspace.config.home
    (home / "config").mkdir(parents=True)
    (home / "config" / "pkg.json").write_text("{not json")
    code, checks = doctor(workspace)
    assert code == 1
    assert checks["settings"]["status"] == "fail"
    assert "config/pkg.json" in checks["settings"]["found"]


def test_a_home_that_is_a_file_fails_without_a_traceback(workspace):
    workspace.config.home.write_text("")
    code, checks = doctor(workspace)
    assert code == 1
    assert checks["home"]["status"] == "fail"


def test_a_stale_private_node_environment_is_a_warning_naming_setup(workspace):
    env = workspace.home / "installation" / "node"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "node").write_text("#!/bin/sh\n")
    gone = str(workspace.home / "gone" / "node")
    (env / "gateway-node.json").write_text(json.dumps({"node": gone, "version": "22.20.0"}))
    done = run_here(
        ["doctor", "--json"],
        env={**os.environ, "GATEWAY_HOME": str(workspace.config.home), "GATEWAY_NODE_ENV": str(env)},
        cwd=os.getcwd(),
    )  # fmt: skip
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert checks["node environment"]["status"] == "warn"
    assert gone in checks["node environment"]["found"]
    assert checks["node environment"]["fix"] == "gateway setup"


def test_the_node_environment_an_older_gateway_made_in_the_home_is_named_as_unread(workspace):
    older = workspace.config.home / "node"
    (older / "bin").mkdir(parents=True)
    (older / "gateway-node.json").write_text(json.dumps({"node": "/gone", "version": "22.20.0"}))
    own = workspace.home / "installation" / "node"
    done = run_here(
        ["doctor", "--json"],
        env={**os.environ, "GATEWAY_HOME": str(workspace.config.home), "GATEWAY_NODE_ENV": str(own)},
        cwd=os.getcwd(),
    )  # fmt: skip
    check = {c["name"]: c for c in json.loads(done.stdout)["checks"]}["node environment"]
    assert f"no private Node environment in {own}" in check["found"]
    assert f"{older}: an older gateway's, no longer read" in check["found"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_store_is_a_failed_check(workspace):
    home = workspace.config.home
    home.mkdir()
    store = home / "state.sqlite3"
    StateStore.open(home).close()
    store.chmod(0)
    try:
        code, checks = doctor(workspace)
    finally:
        store.chmod(stat.S_IRUSR | stat.S_IWUSR)
    assert code == 1
    assert checks["state store"]["status"] == "fail"


def test_an_untrusted_package_is_a_warning_with_the_trust_command(workspace):
    source = workspace.root.parent / "sources" / "tool"
    source.mkdir(parents=True)
    (source / "extension.json").write_text(json.dumps({"name": "tool", "command": ["true"]}))
    report = install(
        workspace.config.home, str(source), kind="local", inspector=load_adapters().inspect
    )
    package_id = report.package.record.id
    _, checks = doctor(workspace)
    check = checks[f"package {package_id}"]
    assert check["status"] == "warn"
    assert "not trusted" in check["found"]
    assert f"gateway trust {package_id}" in check["fix"]
    assert "1 package" in checks["state store"]["found"]


def test_human_output_is_one_line_per_check_with_fix_lines_under_non_ok_ones(workspace):
    done = gateway(workspace, "doctor")
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ok") and "python" in lines[0]
    home = next(i for i, line in enumerate(lines) if line.split()[1:2] == ["home"])
    assert lines[home].startswith("warn")
    assert lines[home + 1].strip() == "fix: gateway setup"
    assert lines[-1].endswith("fail") and " ok, " in lines[-1]
