"""The registry loads an adapter when it is used (``adapters/registry.py``, ``_KNOWN``): a
workspace's discovery loads only the adapters whose discovery folders are there, and finds
exactly what asking every adapter found. Which modules load is read from ``sys.modules`` of
a fresh interpreter (the suite's own has every adapter loaded); nothing is timed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adapters.registry import _KNOWN, ADAPTERS, BUILTIN, ECOSYSTEMS
from gateway.model import DiscoveredLaunch

# Every ecosystem's folders, in a workspace and a user's home: what a discovery may meet.
FOLDERS = (
    ".pi/extensions/hello.ts",
    ".pi/agent/extensions/mine.ts",
    ".openclaw/extensions/plug/openclaw.plugin.json",
    ".openclaw/extensions/plug/package.json",
    ".nimlet/extensions/notes/extension.json",
    ".nimlet/tools/t/tool.json",
    ".claude/plugins/p/.claude-plugin/plugin.json",
    ".codex/plugins/p/.codex-plugin/plugin.json",
    ".gemini/extensions/g/gemini-extension.json",
    ".agents/plugins/a/plugin.json",
    ".nanobot/extensions/n/nanobot.extension.json",
)
PLUGIN = {"id": "plug", "configSchema": {"type": "object"}, "contracts": {"tools": ["t"]}}
PACKAGE = {"name": "plug", "version": "1.0.0", "openclaw": {"extensions": ["./index.mjs"]}}


def _fill(root: Path) -> None:
    for name in FOLDERS:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = {"openclaw.plugin.json": PLUGIN, "package.json": PACKAGE}.get(path.name, {})
        path.write_text(json.dumps(text) if path.suffix == ".json" else "export {};\n")
    (root / ".openclaw/extensions/plug/index.mjs").write_text("export default {};\n")


def _every_adapter(workspace: Path, user: Path, trusted: bool, home: Path) -> list[object]:
    """What the gateway found before the registry was lazy: every adapter asked in turn."""
    return [item for a in ADAPTERS for item in a.discover(workspace, user, trusted, home)]


def test_the_table_names_every_adapter_in_detection_order() -> None:
    assert tuple(adapter.ecosystem for adapter in ADAPTERS) == ECOSYSTEMS
    assert [type(adapter).__name__ for adapter in ADAPTERS] == [row[2] for row in _KNOWN]
    assert BUILTIN.adapter("nimlet") is ADAPTERS[-1]  # one instance each
    assert BUILTIN.adapter("no-such-ecosystem") is None


@pytest.mark.parametrize("ecosystem", [row[0] for row in _KNOWN if not row[3]])
def test_an_adapter_said_not_to_discover_finds_nothing_anywhere(
    tmp_path: Path, ecosystem: str
) -> None:
    workspace, user, home = tmp_path / "ws", tmp_path / "user", tmp_path / "home"
    _fill(workspace)
    _fill(user)
    adapter = BUILTIN.adapter(ecosystem)
    assert adapter is not None
    for trusted in (True, False):
        assert adapter.discover(workspace, user, trusted, home) == []


@pytest.mark.parametrize("trusted", [True, False])
@pytest.mark.parametrize("where", ["nowhere", "workspace", "user", "both"])
def test_discovery_finds_what_every_adapter_asked_in_turn_finds(
    tmp_path: Path, trusted: bool, where: str
) -> None:
    workspace, user, home = tmp_path / "ws", tmp_path / "user", tmp_path / "home"
    for root in (workspace, user, home):
        root.mkdir()
    if where in ("workspace", "both"):
        _fill(workspace)
    if where in ("user", "both"):
        _fill(user)
    found = BUILTIN.discover(workspace, user, trusted, home)
    assert found == _every_adapter(workspace, user, trusted, home)
    assert all(isinstance(item, DiscoveredLaunch) for item in found)
    if where != "nowhere":
        assert found  # the folders above hold something for Pi and OpenClaw


def test_pi_agent_dir_is_one_of_pis_discovery_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    (agent / "extensions").mkdir(parents=True)
    (agent / "extensions" / "mine.ts").write_text("export {};\n")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    workspace, user = tmp_path / "ws", tmp_path / "user"
    workspace.mkdir()
    found = BUILTIN.discover(workspace, user, True, tmp_path / "home")
    assert [item.name for item in found] == ["pi:mine.ts"]
    assert found == _every_adapter(workspace, user, True, tmp_path / "home")


LOADED = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from adapters.registry import BUILTIN
    workspace, user = Path(sys.argv[1]), Path(sys.argv[2])
    found = BUILTIN.discover(workspace, user, True, user / ".gateway")
    BUILTIN.adapter("nimlet")
    print(json.dumps([len(found), sorted(m.split(".")[1] for m in sys.modules
                                         if m.startswith("adapters.") and m.endswith(".adapter"))]))
    """
)


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        (None, ["nimlet"]),
        (".pi/extensions", ["nimlet", "pi"]),
        (".openclaw/extensions", ["nimlet", "openclaw"]),
    ],
)
def test_only_the_adapters_used_are_imported(
    tmp_path: Path, folder: str | None, expected: list[str]
) -> None:
    """A fresh interpreter: the adapters (``adapters.<package>.adapter``) in its
    ``sys.modules`` are the ones the registry loaded."""
    workspace, user = tmp_path / "ws", tmp_path / "user"
    workspace.mkdir()
    user.mkdir()
    if folder is not None:
        (workspace / folder).mkdir(parents=True)  # there, but empty: nothing is found
    done = subprocess.run(
        [sys.executable, "-c", LOADED, str(workspace), str(user)],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": ":".join(sys.path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    count, loaded = json.loads(done.stdout)
    assert count == 0
    assert loaded == expected  # nimlet's was asked for by name
