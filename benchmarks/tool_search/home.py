"""The home the tool search benchmark searches: 36 packages of the seven formats, installed
and past their four gates, built from what this repository holds — no network.

The same sources as the shared home builder (``benchmarks/_home.py``): the examples'
packages, the packed real npm packages (Pi, OpenClaw), Anthropic's Claude Code plugins, the
Agent Plugins fixtures and twelve small generated packages (``benchmarks/_generated.py``:
nimlet, nanobot, Pi, an echo tool each, the noise of a home built over months) — plus the
four MCP reference servers of ``tests/fixtures/mcp-servers`` (50 real tools with real
descriptions), without which the home holds a dozen tools worth searching. It installs
them in process (``gateway.packages.install``), not through the CLI as ``_home`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks._generated import nanobot_package, nimlet_package, pi_package
from gateway.packages import install, load_adapters
from gateway.store import StateStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "packages"
NPM = REPO / "tests" / "fixtures" / "npm"
CLAUDE = REPO / "tests" / "fixtures" / "claude_plugins"
AGENT_PLUGINS = REPO / "tests" / "fixtures" / "agent-plugins"
MCP_SERVERS = REPO / "tests" / "fixtures" / "mcp-servers"

SOURCES: tuple[tuple[str, Path], ...] = (
    *(("local", EXAMPLES / name) for name in
      ("acme-review", "house-style", "nu-changelog", "glossary", "ticket-policy")),
    *(("npm", NPM / name) for name in (
        "pi-aliases-1.0.7.tgz", "aliou-pi-processes-0.12.0.tgz", "pi-mermaid-0.3.0.tgz",
        "pi-prompt-template-model-0.12.2.tgz", "agentuity-pi-2.0.21.tgz",
        "ollama-openclaw-web-search-0.2.2.tgz", "jasper-context-compactor-0.4.1.tgz",
        "openclaw-nostr-2026.9.5.tgz",
    )),
    *(("local", CLAUDE / name) for name in
      ("commit-commands", "example-plugin", "explanatory-output-style", "feature-dev",
       "ralph-loop")),
    ("local", AGENT_PLUGINS / "notes"),
    ("local", AGENT_PLUGINS / "demo"),
    *(("local", MCP_SERVERS / name) for name in
      ("mcp-filesystem", "mcp-memory", "mcp-github", "mcp-sequential-thinking")),
)  # fmt: skip
"""(install kind, source) of every installed package but the generated ones."""
GENERATED = 4
"""Generated packages of each of nimlet, nanobot and Pi."""


@dataclass(frozen=True, slots=True)
class Home:
    home: Path
    workspace: Path
    installed: tuple[str, ...]


def _generated(root: Path) -> list[Path]:
    return [
        make(root, n)
        for n in range(GENERATED)
        for make in (nimlet_package, nanobot_package, pi_package)
    ]


def build_home(root: Path) -> Home:
    """Install every package into ``root/home`` (trusted, granted, enabled); an empty
    workspace beside it."""
    home, workspace = root / "home", root / "workspace"
    workspace.mkdir(parents=True)
    sources = [*SOURCES, *(("local", path) for path in _generated(root / "generated"))]
    adapters = load_adapters()
    installed: list[str] = []
    for kind, source in sources:
        report = install(home, str(source), kind=kind, inspector=adapters.inspect)
        package_id = report.package.record.id
        wanted = [p.name for p in report.entry.permissions]
        with StateStore.open(home) as store:
            if wanted:
                store.grant(package_id, wanted, wanted)
            store.set_trusted(package_id, True)
            store.set_enabled(package_id, True)
        installed.append(package_id)
    return Home(home, workspace, tuple(installed))
