"""What ``gateway serve --mcp`` says on stderr while it starts (gateway/serve/_report.py):
each problem once, grouped by package as ``gateway list`` groups them — one line per package
that warned, with how many and their codes, the gateway's own warnings and every error in
full, one closing line naming ``gateway list`` — ``-v`` each warning in full, ``-q`` errors
only; a package's text printable and on its one line. The protocol on stdout is the same
in every mode.

The home holds small nimlet packages whose process is ``/bin/sh`` printing one ``register``
that carries diagnostics (``register.diagnostics``, offered to every extension), or exiting
before it: many diagnostics for a few milliseconds of CPU. The server runs in this process
(``tests/serve/_here.serve_here``); the class's unit tests need no server at all."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from gateway.base import Diagnostic, Severity, catalogue
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests.serve._here import serve_here

pytestmark = pytest.mark.anyio

_SH = """#!/bin/sh
printf '%s\\n' '@REGISTER@'
while read -r line; do case "$line" in *'"shutdown"'*) exit 0;; esac; done
"""
LOUD = [  # said in this order by the package's register
    {
        "code": "pi.unsupported_api",
        "message": "a \u001b[31mred\u001b[0m renderer\nwarning [x] forged",
    },
    {"code": "openclaw.tool_undeclared", "message": "tool t is not in contracts.tools"},
    {"code": "pi.event_unmapped", "message": "event model_select never runs"},
    {"code": "pi.unsupported_api", "message": "registerShortcut"},
]
SOLO = [{"code": "pi.unsupported_api", "message": "registerMessageRenderer"}]


def _package(
    sources: Path, home: Path, name: str, diagnostics: list[dict[str, str]] | None
) -> None:
    """A nimlet package whose process registers nothing but ``diagnostics``; None: its
    process exits before it registers (``extension.start_failed``)."""
    folder = sources / name
    folder.mkdir(parents=True)
    if diagnostics is None:
        script = "#!/bin/sh\nexit 0\n"
    else:
        register = {"type": "register", "tools": [], "commands": [],
                    "gateway": {"diagnostics": diagnostics}}  # fmt: skip
        script = _SH.replace("@REGISTER@", json.dumps(register))
    (folder / "run.sh").write_text(script)
    (folder / "run.sh").chmod(0o755)
    (folder / "extension.json").write_text(json.dumps({"name": name, "command": ["./run.sh"]}))
    report = install(home, str(folder), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted(report.package.record.id, True)
        store.set_enabled(report.package.record.id, True)


@pytest.fixture(scope="module")
def noisy(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Three packages that warn (one of them an error too) and the workspace's own
    extension whose manifest is not JSON (the gateway's own warning: no package)."""
    root = tmp_path_factory.mktemp("noisy")
    home, workspace = root / "user" / ".gateway", root / "workspace"
    (workspace / ".nimlet" / "extensions" / "bad").mkdir(parents=True)
    (workspace / ".nimlet" / "extensions" / "bad" / "extension.json").write_text("{")
    for name, diagnostics in (("loud", LOUD), ("solo", SOLO), ("broken", None)):
        _package(root / "sources", home, name, diagnostics)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(root / "user"))
    return {"root": root, "home": home, "workspace": workspace, "env": env}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the MCP client's stdio transport


async def _serve(noisy: dict[str, Any], *flags: str) -> tuple[list[str], list[str]]:
    """Serve the home with ``flags``: the tools listed, and the lines said on stderr."""
    errlog = noisy["root"] / f"stderr{''.join(flags)}.log"
    async with serve_here(
        ["--workspace", str(noisy["workspace"]), "--trust", *flags], env=noisy["env"],
        cwd=noisy["root"], errlog=errlog,
    ) as connection:  # fmt: skip
        tools = [tool.name for tool in (await connection.list_tools()).tools]
    return tools, errlog.read_text().splitlines()


def _bad_manifest(noisy: dict[str, Any]) -> str:
    path = noisy["workspace"] / ".nimlet" / "extensions" / "bad" / "extension.json"
    return f"gateway serve: warning [manifest.unreadable] skipping {path}: "


ERROR = "gateway serve: error [openclaw.tool_undeclared] loud: tool t is not in contracts.tools"


async def test_the_start_says_each_package_once_with_its_codes(noisy: dict[str, Any]) -> None:
    tools, lines = await _serve(noisy)
    assert lines[0] == ERROR  # at once, in full
    assert lines[1].startswith(_bad_manifest(noisy))  # the gateway's own, in full
    assert lines[2:] == [
        "gateway serve: broken: 1 warning [extension.start_failed]",
        "gateway serve: loud: 3 warnings [2 pi.unsupported_api, pi.event_unmapped]",
        "gateway serve: solo: 1 warning [pi.unsupported_api]",
        "gateway serve: 5 warnings from 3 packages at start: `gateway list` says each in full "
        "(or serve -v)",
    ]
    verbose_tools, verbose = await _serve(noisy, "-v")
    broken = [line for line in verbose if "[extension.start_failed]" in line]
    assert len(broken) == 1 and broken[0].startswith(
        "gateway serve: warning [extension.start_failed] broken: extension 'broken' failed to "
        "start ("
    )
    # Each in full, grouped by package as `gateway list` groups them (the gateway's own
    # first), a package's text escaped and on its one line.
    assert verbose[0] == ERROR
    assert verbose[1].startswith(_bad_manifest(noisy))
    assert verbose[2:] == [
        broken[0],
        "gateway serve: warning [pi.unsupported_api] loud: a \\x1b[31mred\\x1b[0m "
        "renderer warning [x] forged",
        "gateway serve: warning [pi.event_unmapped] loud: event model_select never runs",
        "gateway serve: warning [pi.unsupported_api] loud: registerShortcut",
        "gateway serve: warning [pi.unsupported_api] solo: registerMessageRenderer",
    ]
    quiet_tools, quiet = await _serve(noisy, "-q")
    assert quiet == [ERROR]
    assert tools == verbose_tools == quiet_tools  # the protocol is the same in every mode


def _report(**options: bool) -> tuple[Any, io.StringIO]:
    from gateway.serve._report import ServeReport

    catalogue()  # every code declared (the Pi adapter's too), when a test runs alone
    out = io.StringIO()
    return ServeReport(out, **options), out


def _said(severity: Severity, package: str | None, message: str, code: str) -> Diagnostic:
    return Diagnostic(code, severity, message, package=package)


def test_the_servers_own_in_full_then_each_one_line_as_it_comes_and_notes_never() -> None:
    report, out = _report()
    report(_said(Severity.INFO, "p", "a note", "pi.unsupported_api"))
    report(_said(Severity.WARNING, "p", "one", "pi.unsupported_api"))
    report(_said(Severity.WARNING, "p", "one", "pi.unsupported_api"))  # the same problem
    report(_said(Severity.WARNING, "p", "p is not active", "serve.package_inactive"))
    assert out.getvalue() == ""
    report.started()
    report.started()  # said once
    report(_said(Severity.WARNING, "q", "later\r\nline", "pi.event_unmapped"))
    assert out.getvalue().splitlines() == [
        # The server's own, which `gateway list` does not say: in full.
        "gateway serve: warning [serve.package_inactive] p: p is not active",
        "gateway serve: p: 1 warning [pi.unsupported_api]",
        "gateway serve: 1 warning from 1 package at start: `gateway list` says each in full "
        "(or serve -v)",
        "gateway serve: warning [pi.event_unmapped] q: later line",
    ]


def test_quiet_says_errors_only_before_and_after_the_start() -> None:
    report, out = _report(quiet=True)
    report(_said(Severity.WARNING, "p", "one", "pi.unsupported_api"))
    report(_said(Severity.ERROR, None, "the \u202egateway's", "openclaw.tool_undeclared"))
    report.started()
    report(_said(Severity.WARNING, "p", "two", "pi.unsupported_api"))
    assert out.getvalue().splitlines() == [
        "gateway serve: error [openclaw.tool_undeclared] the \\u202egateway's"
    ]


def test_what_a_request_says_while_the_runtimes_warm_is_said_at_once_not_held() -> None:
    """A call answered during the start warns about that call, which `gateway list` would
    not say: one line at once; the start's own warnings are still held and summed up."""
    from gateway.serve._report import answering

    report, out = _report()
    report(_said(Severity.WARNING, "p", "at its start", "pi.unsupported_api"))
    with answering():
        report(_said(Severity.WARNING, "q", "during the call", "claude.hook_failed"))
    report(_said(Severity.WARNING, "r", "also at start", "pi.event_unmapped"))
    assert out.getvalue().splitlines() == [
        "gateway serve: warning [claude.hook_failed] q: during the call"
    ]
    report.started()
    assert out.getvalue().splitlines()[1:] == [
        "gateway serve: p: 1 warning [pi.unsupported_api]",
        "gateway serve: r: 1 warning [pi.event_unmapped]",
        "gateway serve: 2 warnings from 2 packages at start: `gateway list` says each in full "
        "(or serve -v)",
    ]
