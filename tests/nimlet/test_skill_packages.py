"""A package that is only a SKILL.md (an npm package whose content is an agent skill): known by
its npm name and version, not by the skill's display name; the environment variables and
executables its frontmatter requires (OpenClaw's `metadata.openclaw.requires`, a top-level
`requires`) are dependencies, gated like any package's."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters import inspect_package
from gateway.packages import evaluate_packages, install, load_adapters
from gateway.store import StateStore
from tests.adapters._helpers import write_tree

PACKAGE_JSON = {"name": "@acme/memory-hub", "version": "2.4.0", "files": ["SKILL.md"]}
OPENCLAW_SKILL = """\
---
name: MemHub — Memory Hub for AI Agents
description: Store and recall memories across sessions.
metadata: {"openclaw": {"requires": {"env": ["MEMHUB_API_KEY"], "bins": ["curl"]}}}
---
Call the API with curl.
"""


def test_a_skill_only_npm_package_is_known_by_its_npm_name_and_version(tmp_path: Path) -> None:
    entry = inspect_package(
        write_tree(tmp_path, {"package.json": PACKAGE_JSON, "SKILL.md": OPENCLAW_SKILL})
    )
    assert (entry.id, entry.name, entry.version) == (
        "@acme/memory-hub",
        "@acme/memory-hub",
        "2.4.0",
    )
    (skill,) = entry.contributions
    assert skill.name == "MemHub — Memory Hub for AI Agents"
    assert entry.description == "Store and recall memories across sessions."


def test_openclaw_skill_metadata_requirements_become_dependencies(tmp_path: Path) -> None:
    entry = inspect_package(
        write_tree(tmp_path, {"package.json": PACKAGE_JSON, "SKILL.md": OPENCLAW_SKILL})
    )
    assert sorted((d.kind, d.name) for d in entry.dependencies) == [
        ("environment", "MEMHUB_API_KEY"),
        ("executable", "curl"),
    ]


@pytest.mark.parametrize(
    "front",
    [
        "requires:\n  env: [MEMHUB_API_KEY]\n",
        "metadata:\n  openclaw:\n    requires:\n      env: [MEMHUB_API_KEY]\n",
        'metadata: {"clawdbot": {"requires": {"env": ["MEMHUB_API_KEY"]}}}\n',
    ],
)
def test_each_way_a_skill_declares_an_environment_variable_is_read(
    tmp_path: Path, front: str
) -> None:
    skill = f"---\nname: memhub\ndescription: Memories.\n{front}---\nBody.\n"
    entry = inspect_package(write_tree(tmp_path, {"SKILL.md": skill}))
    assert [(d.kind, d.name) for d in entry.dependencies] == [("environment", "MEMHUB_API_KEY")]


def test_an_unset_required_variable_holds_the_skill_package_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMHUB_API_KEY", raising=False)
    source = write_tree(
        tmp_path / "src", {"package.json": PACKAGE_JSON, "SKILL.md": OPENCLAW_SKILL}
    )
    home = tmp_path / "home"
    install(home, str(source), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted("@acme/memory-hub", True)
        store.set_enabled("@acme/memory-hub", True)
    (status,) = evaluate_packages(home, load_adapters())
    assert not status.active
    assert "environment variable MEMHUB_API_KEY is not set" in status.unmet_dependencies
    monkeypatch.setenv("MEMHUB_API_KEY", "k")
    (status,) = evaluate_packages(home, load_adapters())
    assert "environment variable MEMHUB_API_KEY is not set" not in status.unmet_dependencies
