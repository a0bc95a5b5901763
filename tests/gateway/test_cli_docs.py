"""`gateway docs [TOPIC]`: the documentation shipped with the gateway (issue 22). The wheel
carrying it is checked in tests/adapters/test_sidecars.py, which builds one."""

from __future__ import annotations

from pathlib import Path

from gateway.cli._docs import DOCS_DIR, topics
from tests.gateway.test_cli import gateway

REPO = Path(__file__).resolve().parents[2]


def test_the_shipped_docs_are_the_checkouts_docs_folder():
    assert DOCS_DIR.resolve() == (REPO / "docs").resolve()


def test_without_a_topic_every_topic_is_listed_with_its_title(workspace):
    done = gateway(workspace, "docs")
    assert done.returncode == 0, done.stderr
    assert "cli  " in done.stdout and "The gateway command line" in done.stdout
    assert len(topics()) >= 10 and all(topic in done.stdout for topic in topics())


def test_a_topic_prints_its_markdown_whole(workspace):
    done = gateway(workspace, "docs", "cli")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (REPO / "docs" / "cli.md").read_text(encoding="utf-8")


def test_a_page_in_a_folder_is_a_topic_by_its_path(workspace):
    assert "performance/cli" in topics()
    done = gateway(workspace, "docs", "performance/cli")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (REPO / "docs" / "performance" / "cli.md").read_text(encoding="utf-8")


def test_an_unknown_topic_is_a_usage_error_naming_the_topics(workspace):
    done = gateway(workspace, "docs", "nope")
    assert done.returncode == 2
    assert "no topic 'nope'" in done.stderr and "cli" in done.stderr
    assert "[docs.unknown_topic]" in done.stderr


def test_docs_makes_no_home(workspace):
    gateway(workspace, "docs")
    assert not workspace.config.home.exists()


def test_the_help_points_at_gateway_docs_not_at_a_file(workspace):
    assert "gateway docs cli" in gateway(workspace, "--help").stdout
