"""``${user_config.KEY}`` in a Claude Code plugin's command text: filled with the values of
its non-sensitive options (Claude Code's plugins reference: skill and agent content "for
non-sensitive values only"); a sensitive one stays as written, never in the model's text; in
a ``!`` line the value is read by the shell from the environment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway
from gateway.packages import install, load_adapters, write_package_config
from gateway.packages.secrets import set_secret
from gateway.store import StateStore

pytestmark = pytest.mark.anyio

OPTIONS = {
    "team": {"type": "string", "title": "Team", "description": "Your team"},
    "retries": {"type": "number", "title": "Retries", "description": "How often", "default": 3},
    "token": {"type": "string", "title": "Token", "description": "API token",
              "sensitive": True, "required": True},
}  # fmt: skip
PLAIN = "Team ${user_config.team}, retries ${user_config.retries}, token ${user_config.token}, "
PLAIN += "unknown ${user_config.nope}; $ARGUMENTS"
SHELL = """---
allowed-tools: Bash(echo:*)
---
Team ${user_config.team} says: !`echo "hello from ${user_config.team}"` (token ${user_config.token})
"""


def _plugin(root: Path) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": "configured", "userConfig": OPTIONS}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    (root / "commands").mkdir()
    (root / "commands" / "plain.md").write_text(PLAIN)
    (root / "commands" / "shell.md").write_text(SHELL)
    return root


async def test_commands_fill_non_sensitive_options_only(workspace: Any) -> None:
    home = workspace.config.home
    report = install(home, str(_plugin(workspace.home / "src" / "configured")),
                     kind="local", inspector=load_adapters().inspect)  # fmt: skip
    package = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package, True)
        store.set_enabled(package, True)
    write_package_config(home, package, {"team": "$ARGUMENTS-core"})
    set_secret(home, package, "token", "s3cret")
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        plain = await gateway.run_command("plain", "now")
        shell = await gateway.run_command("shell", "")
    # One pass: the value is not read for placeholders again; the default applies.
    assert plain.prompt == (
        "Team $ARGUMENTS-core, retries 3, token ${user_config.token}, "
        "unknown ${user_config.nope}; now"
    )
    assert shell.prompt is not None
    assert shell.prompt.strip() == (
        "Team $ARGUMENTS-core says: hello from $ARGUMENTS-core (token ${user_config.token})"
    )
    for outcome in (plain, shell):
        assert "s3cret" not in (outcome.prompt or "")
