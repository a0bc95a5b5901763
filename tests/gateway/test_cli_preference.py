"""``gateway status``, ``gateway list --packages`` and ``gateway list`` show who wins name
clashes (``gateway prefer``): a line in the human output, ``preferred`` (``[{id, kind}]``,
strongest first) in ``--json``; with nothing preferred they say install order decides.
``gateway prefer`` takes a discovered extension's id (``pi:NAME``) and still refuses an id
that is neither installed nor one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.adapters._helpers import write_tree
from tests.gateway.packages._helpers import cli
from tests.serve._helpers import install_ready

EXTENSION = """#!@PYTHON@
import json, sys
sys.stdout.write(json.dumps({"type": "register", "tools": [], "commands": [], "events": []}) + "\\n")
sys.stdout.flush()
for line in sys.stdin:
    if json.loads(line).get("type") == "shutdown":
        break
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    for name in ("first", "second"):
        root = tmp_path / "src" / name
        write_tree(root, {"extension.json": {"name": name, "command": ["./ext.py"]},
                          "ext.py": EXTENSION.replace("@PYTHON@", sys.executable)})  # fmt: skip
        (root / "ext.py").chmod(0o755)
        install_ready(home, root)
    return home


def shown(home: Path, *verb: str) -> tuple[str, object]:
    text = cli(home, *verb)
    data = cli(home, *verb, "--json")
    assert text.returncode == 0 and data.returncode == 0, (text.stderr, data.stderr)
    return text.stdout, json.loads(data.stdout)["preferred"]


@pytest.mark.parametrize("verb", [("status",), ("list", "--packages"), ("list",)])
def test_status_and_list_show_the_preference(home, tmp_path, verb) -> None:
    text, preferred = shown(home, *verb)  # the control: nothing preferred
    assert preferred == [] and "name clashes: install order decides" in text
    done = cli(home, "prefer", "second", "pi:helper")
    assert done.returncode == 0, done.stderr
    text, preferred = shown(home, *verb)
    assert preferred == [{"id": "second", "kind": "installed"},
                         {"id": "pi:helper", "kind": "discovered"}]  # fmt: skip
    assert "name clashes: preferred 1. second, 2. pi:helper (discovered); then install" in text


def test_prefer_still_refuses_an_id_that_is_neither_installed_nor_discovered(home) -> None:
    done = cli(home, "prefer", "second", "helper")
    assert done.returncode == 1 and "package.unknown" in done.stderr
    assert cli(home, "prefer", "second", "openclaw:helper").returncode == 0  # the control
