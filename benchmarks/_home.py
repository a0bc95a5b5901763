"""A lived-in home: 30+ packages of the seven formats, installed through the CLI as a user
installs them, each trusted, granted what it asks for and enabled.

Shared by the benchmarks that need a realistic home (``bench_home.py``; the tool search
benchmark of issue 32). Packed real packages where their licences allow, as the test
fixtures are (``tests/fixtures/npm``: Pi and OpenClaw packages from npm;
``tests/fixtures/claude_plugins``: Anthropic's Apache-2.0 Claude Code plugins;
``tests/fixtures/agent-plugins``), the examples' packages of every format, and small
generated ones (nimlet, nanobot, Pi) to fill it out::

    from benchmarks._home import build_home, HOME_PACKAGES
    home = build_home(folder)                      # every package
    one = build_home(folder2, only=["glossary"])   # a home of that one package
    home.gateway("list", "--workspace", str(home.workspace), "--json")

Each ``HomePackage`` has a ``key`` (stable, for ``only=``), its format and where it comes
from; ``Home`` holds the environment (a private ``HOME`` and ``GATEWAY_HOME``), the installed
ids by key, and an empty workspace. Nothing here times anything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks._generated import nanobot_package, nimlet_package, pi_package

__all__ = ["HOME_PACKAGES", "Home", "HomePackage", "build_home", "gateway_command"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "packages"
NPM = ROOT / "tests" / "fixtures" / "npm"
CLAUDE = ROOT / "tests" / "fixtures" / "claude_plugins"
AGENT_PLUGINS = ROOT / "tests" / "fixtures" / "agent-plugins"


def gateway_command() -> list[str]:
    """This checkout's CLI, in this interpreter."""
    return [sys.executable, "-m", "gateway"]


def _hooked_pi(root: Path, index: int) -> Path:
    return pi_package(root, index, hooked=True)


def _copy(source: Path) -> Callable[[Path, int], Path]:
    def make(root: Path, index: int) -> Path:
        return Path(shutil.copytree(source, root / f"{source.name}-{index}"))

    return make


def _given(source: Path) -> Callable[[Path, int], Path]:
    return lambda root, index: source


@dataclass(frozen=True, slots=True)
class HomePackage:
    key: str
    """Stable name for ``build_home(only=…)``."""
    ecosystem: str
    make: Callable[[Path, int], Path]
    """Where its source is (made under the folder given, when generated or copied)."""
    kind: str = "local"
    """``gateway install --kind``."""


def _generated(count: int, ecosystem: str, make: Callable[[Path, int], Path]) -> list[HomePackage]:
    return [HomePackage(f"{ecosystem}-{n}", ecosystem, make) for n in range(count)]


def _npm(key: str, ecosystem: str, tarball: str) -> HomePackage:
    return HomePackage(key, ecosystem, _given(NPM / tarball), "npm")


_CLAUDE_PLUGINS = ("commit-commands", "example-plugin", "explanatory-output-style",
                   "feature-dev", "ralph-loop")  # fmt: skip

HOME_PACKAGES: tuple[HomePackage, ...] = (
    # The examples: one package of each installable format.
    HomePackage("acme-review", "nanobot", _copy(EXAMPLES / "acme-review")),
    HomePackage("house-style", "openclaw", _copy(EXAMPLES / "house-style")),
    HomePackage("nu-changelog", "nu", _copy(EXAMPLES / "nu-changelog")),
    HomePackage("glossary", "agent-plugins", _copy(EXAMPLES / "glossary")),
    HomePackage("ticket-policy", "claude", _copy(EXAMPLES / "ticket-policy")),
    # Real packages from npm, packed (tests/fixtures/npm).
    _npm("pi-aliases", "pi", "pi-aliases-1.0.7.tgz"),
    _npm("pi-processes", "pi", "aliou-pi-processes-0.12.0.tgz"),
    _npm("pi-mermaid", "pi", "pi-mermaid-0.3.0.tgz"),
    _npm("pi-prompts", "pi", "pi-prompt-template-model-0.12.2.tgz"),
    _npm("agentuity-pi", "pi", "agentuity-pi-2.0.21.tgz"),
    _npm("ollama-search", "openclaw", "ollama-openclaw-web-search-0.2.2.tgz"),
    _npm("context-compactor", "openclaw", "jasper-context-compactor-0.4.1.tgz"),
    _npm("nostr", "openclaw", "openclaw-nostr-2026.9.5.tgz"),
    # Anthropic's Claude Code plugins (Apache-2.0), and an Agent Plugins fixture (the demo
    # plugin is left out: one of its servers fails on purpose, so it starts at every load).
    *(HomePackage(f"claude-{name}", "claude", _copy(CLAUDE / name)) for name in _CLAUDE_PLUGINS),
    HomePackage("notes-plugin", "agent-plugins", _copy(AGENT_PLUGINS / "notes")),
    # Small generated packages: the rest of a home built over months.
    *_generated(4, "nimlet", nimlet_package),
    *_generated(4, "nanobot", nanobot_package),
    *_generated(4, "pi", _hooked_pi),
)


@dataclass(slots=True)
class Home:
    root: Path
    env: dict[str, str]
    workspace: Path
    ids: dict[str, str] = field(default_factory=dict)
    """Package key -> installed id."""

    def gateway(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*gateway_command(), *args], env=self.env, capture_output=True, text=True,
            cwd=self.workspace, timeout=600, check=False,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise RuntimeError(f"gateway {' '.join(args)}: {done.stdout}{done.stderr}")
        return done


def build_home(
    root: Path,
    only: Sequence[str] | None = None,
    *,
    ready: bool = True,
    env: dict[str, str] | None = None,
) -> Home:
    """Install the packages (``only``: these keys) into a new home under ``root``; with
    ``ready`` each is granted what it asks for, trusted and enabled. ``env``: variables
    over this process's (the session switch, say)."""
    wanted = list(HOME_PACKAGES) if only is None else [p for p in HOME_PACKAGES if p.key in only]
    missing = set(only or ()) - {p.key for p in wanted}
    if missing:
        raise ValueError(f"no such home packages: {', '.join(sorted(missing))}")
    user = root / "user"
    workspace = root / "workspace"
    user.mkdir(parents=True)
    workspace.mkdir()
    base = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    base.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed gateway has its byte code
    # `python3` in an MCP server's command: this interpreter, which has the MCP SDK.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    variables = {"HOME": str(user), "GATEWAY_HOME": str(user / ".gateway"), "PATH": path}
    home = Home(root, {**base, **variables, **(env or {})}, workspace)
    sources = root / "sources"
    for index, package in enumerate(wanted):
        source = package.make(sources, index)
        installed = home.gateway("install", str(source), "--kind", package.kind, "--json")
        report = json.loads(installed.stdout)
        home.ids[package.key] = report["id"]
        if ready and report.get("requested_permissions"):
            home.gateway("permissions", report["id"], *report["requested_permissions"])
    if ready and home.ids:
        ids = list(home.ids.values())
        home.gateway("trust", *ids)
        home.gateway("enable", *ids)
    return home
