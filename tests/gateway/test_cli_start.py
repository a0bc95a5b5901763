"""A CLI that starts like git: each command loads what it uses, nothing more (issue 18).

What a command imports is read from ``sys.modules`` of a fresh interpreter, never timed;
the figures are in docs/performance/cli.md ("CLI start", benchmarks/bench_cli.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from gateway.cli._main import _VERBS
from gateway.cli._parser import (
    _VERBS as PARSED,
)
from gateway.cli._parser import (
    AUDIT_FAIL_ON,
    AUDIT_FORMATS,
    AUDIT_HOSTS,
    MIGRATE_TARGETS,
    build_parser,
)
from tests.gateway.test_cli import gateway, gateway_process, ws
from tests.gateway.test_lazy_start import nimlet_package, starts

# What a short command must not load: the host, the wire's pydantic models, the heavy
# libraries behind them, and the entry-point scan (importlib.metadata).
HEAVY = (
    "gateway.host._gateway",
    "gateway.wire.protocol",
    "gateway.audit._run",
    "pydantic",
    "jsonschema",
    "yaml",
    "rich",
    "mcp",
    "anyio",
    "asyncio",
    "importlib.metadata",
)

LOADED = textwrap.dedent(
    """
    import json, sys
    {setup}
    try:
        {run}
    except SystemExit:
        pass
    heavy = {heavy!r}
    print(json.dumps(sorted(m for m in heavy if m in sys.modules)))
    """
)


def loaded(workspace: Any, run: str, setup: str = "", heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The ``heavy`` modules in ``sys.modules`` after ``run`` in a fresh interpreter."""
    code = LOADED.format(setup=setup, run=run, heavy=heavy)
    env = {"GATEWAY_HOME": str(workspace.home / ".gateway"), "HOME": str(workspace.home)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={**_base_env(), **env}, cwd=workspace.home,
    )  # fmt: skip
    result: list[str] = json.loads(done.stdout.splitlines()[-1])
    return result


def _base_env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}


def test_importing_the_cli_loads_nothing_heavy(workspace):
    assert loaded(workspace, "import gateway.cli") == []


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["call", "--help"], ["status"]])
def test_a_short_command_loads_nothing_heavy(workspace, argv):
    run = f"from gateway.cli import main; main({argv!r})"
    assert loaded(workspace, run) == []


def test_version_loads_no_command_line(workspace):
    """``--version`` is answered before the parser's modules load: argparse (its help
    formatter imports shutil, bz2, lzma as the parser is built), pathlib, contextlib."""
    run = "from gateway.cli import main; assert main(['--version']) == 0"
    heavy = ("shutil", "argparse", "pathlib", "contextlib", "gateway.cli._main")
    code = LOADED.format(setup="", run=run, heavy=heavy)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    version, modules = done.stdout.splitlines()
    assert version.startswith("gateway ") and modules == "[]", done.stderr


def test_status_of_a_store_without_packages_loads_no_adapter(workspace):
    folder = workspace.root
    gateway(workspace, "trust", str(folder))  # the store exists now, with no package in it
    run = "from gateway.cli import main; main(['status'])"
    assert loaded(workspace, run) == []


def test_a_call_among_nimlet_extensions_imports_no_adapter(workspace):
    """The adapters of the nine ecosystems load when used: in a workspace of nimlet
    extensions and nothing installed, a call imports none of them (nimlet's extensions are
    the gateway's own discovery; only Pi's and OpenClaw's adapters discover, in folders that
    are not there). Its output is a call's."""
    from adapters.registry import _KNOWN

    workspace.add_extension("beta", language="python", tools=["beta_tool"])
    call = ["call", "beta_tool", '{"do": "echo"}', "--workspace", ws(workspace), "--trust"]
    run = f"from gateway.cli import main; assert main({call!r}) == 0"
    adapters = tuple(f"{package}.adapter" for _, package, _, _ in _KNOWN)
    assert loaded(workspace, run, heavy=adapters) == []
    (workspace.root / ".pi" / "extensions").mkdir(parents=True)  # Pi's folder: Pi's adapter
    assert loaded(workspace, run, heavy=adapters) == ["adapters.pi.adapter"]


def test_every_verb_the_parser_knows_runs_and_only_those():
    assert set(PARSED) == set(_VERBS)


def test_a_verb_gets_its_arguments_only_when_named():
    parser = build_parser(["call", "save_note"])
    args = parser.parse_args(["call", "save_note", "{}", "--trust", "--json"])
    assert (args.verb, args.tool, args.trust, args.json) == ("call", "save_note", True, True)
    assert build_parser(["--version"]).parse_args(["status"]).verb == "status"


def test_choices_the_parser_repeats_are_those_of_their_floors():
    from gateway.audit import FAIL_ON, FORMATS, HOSTS
    from gateway.migrate import TARGETS

    assert (AUDIT_FORMATS, AUDIT_FAIL_ON, AUDIT_HOSTS) == (FORMATS, FAIL_ON, HOSTS)
    assert set(MIGRATE_TARGETS) == set(TARGETS)


def test_python_m_gateway_cli_is_the_cli(workspace):
    done = subprocess.run(
        [sys.executable, "-m", "gateway.cli", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stdout.startswith("gateway ")


def test_a_call_still_gets_the_hooks_of_a_package_it_does_not_call(workspace):
    """The called tool is a workspace extension's; an installed package hooks tool_call.
    Whether that package starts at once (nothing cached) or from the registration cache
    when the hook is dispatched, its hook decides the call."""
    hooks = {"tool_call": {"allow": False, "reason": "alpha says no"}}
    _, alpha = nimlet_package(workspace, "alpha", tools=[], events=["tool_call"], hooks=hooks)
    workspace.add_extension("beta", language="python", tools=["beta_tool"])
    call = ("call", "beta_tool", '{"do": "echo"}', "--workspace", ws(workspace), "--trust")
    first = gateway(workspace, *call, "--json")
    second = gateway(workspace, *call, "--json")  # alpha's registration is cached now
    for done in (first, second):
        result = json.loads(done.stdout)
        assert (result["blocked"], result["content"]) == (True, "alpha says no"), done.stderr
    assert starts(alpha) == 2


def test_a_call_leaves_its_output_whole_when_it_exits_without_teardown(workspace):
    """A real process: the command line's own exit (``os._exit``, no interpreter teardown)
    is what is tested, and an in-process run returns instead."""
    workspace.add_extension("beta", language="python", tools=["beta_tool"])
    done = gateway_process(
        workspace, "call", "beta_tool", '{"do": "echo"}', "--workspace", ws(workspace), "--trust"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[ok] ") and done.stdout.endswith("\n")


def test_the_collector_pauses_while_a_verb_loads_and_runs_again_after():
    """In a process of its own the verb's modules load without the cyclic collector
    rescanning them, then are frozen out of its reach; it runs again for the verb itself.
    An in-process caller (a test, a script) keeps its collector as it was."""
    code = textwrap.dedent(
        """
        import gc, json
        from gateway.cli._main import _verb
        _verb("inspect")
        before = gc.get_freeze_count()
        _verb("call", process=True)
        print(json.dumps([before, gc.get_freeze_count() > 0, gc.isenabled()]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert json.loads(done.stdout) == [0, True, True], done.stderr
