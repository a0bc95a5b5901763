"""The issue's "done when", through the `gateway` command line (state in a temporary
GATEWAY_HOME; run in this process, tests/_cli_inprocess.py, but for the runs whose
interpreter must find the declared Python dependency on its PYTHONPATH: real subprocesses):
the authoring document's example package installs, is inspected, is refused until its
dependency is met, its permission granted and it is trusted and enabled, and then works
through `gateway call` and `gateway command`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.sandbox import package_dirs

from ._helpers import cli, cli_json, cli_process
from ._packages import REVIEW, REVIEW_MANIFEST

pytestmark = pytest.mark.slow  # measured long: scheduled first (tests/conftest.py)

# Importing the package leaves a mark in $HOME, to prove when its code first ran.
# Written where its confined process may write: its data folder under GATEWAY_HOME.
MARK = (
    "import os, pathlib\npathlib.Path(os.environ['GATEWAY_DATA_DIR'], 'review-imported').touch()\n"
)


def write_review(root: Path) -> Path:
    (root / "my_extension").mkdir(parents=True)
    (root / "nanobot.extension.json").write_text(json.dumps(REVIEW_MANIFEST, indent=2))
    (root / "my_extension" / "__init__.py").write_text(MARK + REVIEW)
    return root


def fake_distribution(site: Path, name: str, version: str) -> Path:
    """A dist-info that importlib.metadata finds: the declared python dependency."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return site


def test_the_document_example_end_to_end(tmp_path: Path) -> None:
    home, project = tmp_path / "gateway-home", tmp_path / "project"
    project.mkdir()
    source = write_review(tmp_path / "src" / "acme-review")
    marker = package_dirs(home, "acme.review", create=False)[0] / "review-imported"
    ws = ("--workspace", str(project))

    installed = cli_json(home, "install", str(source))
    assert installed["id"] == "acme.review" and installed["ecosystem"] == "nanobot"

    inspected = cli_json(home, "inspect", "acme.review")
    assert inspected["runtime"] == "python-sidecar"
    assert [(c["kind"], c["name"]) for c in inspected["contributions"]] == [
        ("tool", "review_code"), ("command", "review"),
    ]  # fmt: skip
    assert inspected["permissions"] == [
        {"name": "workspace.read", "reason": "Read files selected for review."}
    ]
    assert [(d["kind"], d["name"], d["specifier"]) for d in inspected["dependencies"]] == [
        ("python", "acme-review-core", ">=1,<2")
    ]
    human = cli(home, "inspect", "acme.review")
    assert "Read files selected for review." in human.stdout

    [status] = cli_json(home, "status")["packages"]
    assert status["active"] is False
    assert {"not trusted", "permissions not granted: workspace.read"} <= set(status["reasons"])
    assert any("acme-review-core" in reason for reason in status["reasons"])

    refused = cli(home, "call", "review_code", '{"path": "README.md"}', *ws)
    assert refused.returncode == 1 and "unknown tool" in refused.stderr
    assert not marker.exists(), "install, inspect and status must run no package code"

    cli_json(home, "permissions", "acme.review", "workspace.read")
    cli_json(home, "trust", "acme.review")
    cli_json(home, "enable", "acme.review")
    [status] = cli_json(home, "status")["packages"]
    assert status["active"] is False and len(status["reasons"]) == 1
    assert "acme-review-core" in status["reasons"][0]
    assert not marker.exists()

    env = {"PYTHONPATH": str(fake_distribution(tmp_path / "site", "acme-review-core", "1.2.0"))}
    [status] = cli_json(home, "status", env=env, process=True)["packages"]
    assert status["active"] is True and status["reasons"] == []

    called = cli_json(
        home, "call", "review_code", '{"path": "README.md"}', *ws, env=env, process=True
    )
    assert called["content"] == "Review requested for README.md"
    assert called["is_error"] is False and called["diagnostics"] == []
    assert marker.exists()

    commanded = cli_json(home, "command", "review", "src/main.py", *ws, env=env, process=True)
    assert commanded["message"] == "Starting a review of src/main.py"
    bare = cli_process(home, "command", "/review", *ws, env=env)
    assert bare.returncode == 0 and "Starting a review of the working tree" in bare.stdout

    cli_json(home, "permissions", "acme.review", "workspace.read", "--revoke")
    assert cli_process(home, "call", "review_code", '{"path": "x"}', *ws, env=env).returncode == 1


def test_install_and_status_name_the_grant_that_passes_a_declared_variable(tmp_path: Path) -> None:
    home = tmp_path / "gateway-home"
    source = tmp_path / "src" / "keyed"
    (source / "keyed").mkdir(parents=True)
    (source / "keyed" / "__init__.py").write_text("def register(api): pass\n")
    manifest = {"id": "acme.keyed", "name": "keyed", "version": "1.0.0", "runtime": "python",
                "entry": "keyed:register",
                "dependencies": [{"kind": "environment", "name": "ACME_KEY"}]}  # fmt: skip
    (source / "nanobot.extension.json").write_text(json.dumps(manifest))
    env = {"ACME_KEY": "v4lue-never-printed"}
    grant = "gateway permissions acme.keyed env:ACME_KEY"

    installed = cli(home, "install", str(source), env=env)
    assert installed.returncode == 0, installed.stderr
    assert grant in installed.stdout
    status = cli(home, "status", env=env)
    shown = " ".join(status.stdout.split())  # the state column wraps
    assert "ACME_KEY set, not passed" in shown and grant in shown
    assert cli(home, "permissions", "acme.keyed", "env:ACME_KEY").returncode == 0
    data = cli_json(home, "status", env=env)
    (package,) = data["packages"]
    assert package["environment"] == {"ACME_KEY": {"set": True, "granted": True}}
    assert "env:ACME_KEY" in package["granted_permissions"]
    for output in (installed.stdout, status.stdout, json.dumps(data)):
        assert "v4lue-never-printed" not in output
