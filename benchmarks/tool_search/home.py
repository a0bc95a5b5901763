"""The home the tool search benchmark searches: 36 packages of the seven formats, installed
and past their four gates, built from what this repository holds — no network.

The same sources as issue 29's shared home builder (``benchmarks/_home.py`` on its branch):
the examples' packages, the packed real npm packages (Pi, OpenClaw), Anthropic's Claude Code
plugins, the Agent Plugins fixtures and twelve small generated packages (nimlet, nanobot,
Pi: an echo tool each, the noise of a home built over months) — plus the four MCP
reference servers of ``tests/fixtures/mcp-servers`` (50 real tools with real
descriptions), without which the home holds a dozen tools worth searching. When the shared
builder lands, ``build_home`` becomes: the shared home, then ``MCP_SERVERS`` installed into it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from benchmarks._home import NANOBOT_SOURCE  # one nanobot echo for every benchmark home
from gateway.packages import install, load_adapters
from gateway.store import StateStore

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "packages"
NPM = REPO / "tests" / "fixtures" / "npm"
CLAUDE = REPO / "tests" / "fixtures" / "claude_plugins"
AGENT_PLUGINS = REPO / "tests" / "fixtures" / "agent-plugins"
MCP_SERVERS = REPO / "tests" / "fixtures" / "mcp-servers"
ECHO = REPO / "benchmarks" / "echo_extension.py"

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

PI_SOURCE = """
import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "pi_echo_@N@", label: "echo", description: "echo",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params) { return { content: [{ type: "text", text: params.text }] }; },
  });
}
"""


@dataclass(frozen=True, slots=True)
class Home:
    home: Path
    workspace: Path
    installed: tuple[str, ...]


def _generated(root: Path) -> list[Path]:
    made = []
    for n in range(GENERATED):
        nimlet = root / f"nim{n}"
        nimlet.mkdir(parents=True)
        source = ECHO.read_text().replace('"name": "echo"', f'"name": "nim_echo_{n}"')
        (nimlet / "echo.py").write_text(f"#!{sys.executable}\n" + source)
        (nimlet / "echo.py").chmod(0o755)
        manifest = {"name": f"nim{n}", "command": ["./echo.py"]}
        (nimlet / "extension.json").write_text(json.dumps(manifest))
        nanobot = root / f"nb{n}"
        (nanobot / f"nb{n}").mkdir(parents=True)
        (nanobot / f"nb{n}" / "__init__.py").write_text(NANOBOT_SOURCE.replace("@N@", str(n)))
        manifest = {
            "id": f"bench.nb{n}", "name": f"nb{n}", "version": "1.0.0", "runtime": "python",
            "entry": f"nb{n}:register", "contributions": [{"kind": "tool", "name": f"nb_echo_{n}"}],
        }  # fmt: skip
        (nanobot / "nanobot.extension.json").write_text(json.dumps(manifest))
        pi = root / f"pi{n}"
        (pi / "extensions").mkdir(parents=True)
        package = {"name": f"bench-pi-{n}", "version": "1.0.0",
                   "pi": {"extensions": ["./extensions/index.ts"]}}  # fmt: skip
        (pi / "package.json").write_text(json.dumps(package))
        (pi / "extensions" / "index.ts").write_text(PI_SOURCE.replace("@N@", str(n)))
        made += [nimlet, nanobot, pi]
    return made


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
