"""A package set that changes under a running ``gateway serve --mcp``: a package installed
while a client is connected is announced (``notifications/tools/list_changed``) and
callable; one uninstalled is announced, its tools refused as unknown, and a call to it that
was in flight finishes; SIGHUP applies a change too. The CLI that changes its home is a
real process; the stdio server is served in this process (``tests/serve/_here.serve_here``:
the change reaches it through the store as it reaches a served process); the SIGHUP and
HTTP client tests share one served process (``over_http``), the ConfigMap test has its own."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from gateway.sandbox import package_dirs
from tests._cli import run_here
from tests.adapters._helpers import write_tree
from tests.serve._helpers import (
    GATEWAY,
    MCP_TIMEOUT,
    PI,
    create_token,
    install_ready,
    need_sidecar,
    terminate,
)
from tests.serve._here import serve_here
from tests.serve.test_http import _start

pytestmark = pytest.mark.anyio

PI_TICKETS = PI
PI_TRACE = Path(__file__).resolve().parent / "fixtures" / "pi-trace"

# NAME_echo answers at once; NAME_wait says it started (a "started" file) and answers once
# a "release" file is in its data folder.
EXTENSION = textwrap.dedent(
    """\
    #!@PYTHON@
    import json, os, sys, threading, time
    data = os.environ["GATEWAY_DATA_DIR"]
    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()
    def wait(request_id):
        open(os.path.join(data, "started"), "w").close()
        while not os.path.exists(os.path.join(data, "release")):
            time.sleep(0.02)
        send({"type": "response", "id": request_id, "content": "@NAME@ waited"})
    schema = {"type": "object"}
    send({"type": "register", "commands": [], "events": [], "tools": [
        {"name": "@NAME@_echo", "description": "echo", "input_schema": schema},
        {"name": "@NAME@_wait", "description": "wait", "input_schema": schema}]})
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "shutdown":
            break
        if message.get("type") == "tool" and message["name"].endswith("_wait"):
            threading.Thread(target=wait, args=(message["id"],), daemon=True).start()
        elif message.get("type") == "tool":
            send({"type": "response", "id": message["id"], "content": "@NAME@ here"})
    """
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def package(root: Path, name: str) -> Path:
    script = EXTENSION.replace("@PYTHON@", sys.executable).replace("@NAME@", name)
    write_tree(root, {"extension.json": {"name": name, "command": ["./ext.py"]}, "ext.py": script})
    (root / "ext.py").chmod(0o755)
    return root


@dataclass
class Connected:
    session: ClientSession
    changed: list[anyio.Event]
    home: Path
    env: dict[str, str]

    async def tool_names(self) -> set[str]:
        return {tool.name for tool in (await self.session.list_tools()).tools}

    async def next_change(self) -> None:
        """Until the next ``notifications/tools/list_changed``."""
        with anyio.fail_after(60):
            await self.changed[-1].wait()
        self.changed.append(anyio.Event())

    async def gateway(self, *args: str) -> None:
        """``gateway ARGS`` against the served home, another process; the server (in this
        event loop) goes on serving while it runs, as a served process would."""
        await anyio.run_process([*GATEWAY, *args], env=self.env, check=True)


def serve_environment(home: Path, **extra: str) -> dict[str, str]:
    """What a served gateway of ``home`` gets: the user's basics and ``extra``."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "HOME")}
    return {**env, "GATEWAY_HOME": str(home), **extra}


@asynccontextmanager
async def connected(tmp_path: Path) -> AsyncIterator[Connected]:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    install_ready(home, package(tmp_path / "alpha", "alpha"))
    async with serving(tmp_path, home, workspace, serve_environment(home)) as client:
        yield client


@asynccontextmanager
async def serving(
    tmp_path: Path, home: Path, workspace: Path, env: dict[str, str]
) -> AsyncIterator[Connected]:
    """An MCP client of ``gateway serve --mcp`` (served in this process, its stderr in
    ``tmp_path/stderr.log``), counting list changes."""
    changed = [anyio.Event()]

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed[-1].set()

    async with serve_here(
        ["--workspace", str(workspace)], env=env, cwd=workspace,
        errlog=tmp_path / "stderr.log", message_handler=on_message,
    ) as session:  # fmt: skip
        yield Connected(session, changed, home, env)


async def test_a_package_installed_under_a_connected_client_is_announced_and_called(
    tmp_path: Path,
) -> None:
    async with connected(tmp_path) as client:
        assert await client.tool_names() == {"alpha_echo", "alpha_wait"}
        install_ready(client.home, package(tmp_path / "beta", "beta"))
        await client.next_change()
        assert await client.tool_names() == {"alpha_echo", "alpha_wait", "beta_echo", "beta_wait"}
        result = await client.session.call_tool("beta_echo", {})
    assert result.content[0].text == "beta here"


async def test_a_package_removed_under_a_connected_client_is_refused_after_its_call_ends(
    tmp_path: Path,
) -> None:
    async with connected(tmp_path) as client:
        data = package_dirs(client.home, "alpha")[0]
        results: list[Any] = []

        async def waiting_call() -> None:
            results.append(await client.session.call_tool("alpha_wait", {}))

        async with anyio.create_task_group() as group:
            group.start_soon(waiting_call)
            with anyio.fail_after(60):
                while not (data / "started").exists():
                    await anyio.sleep(0.02)
            await client.gateway("uninstall", "alpha")
            await client.next_change()  # its tools left the list while its call ran
            assert await client.tool_names() == set()
            with pytest.raises(Exception, match="Unknown tool: alpha_echo"):
                await client.session.call_tool("alpha_echo", {})
            data.mkdir(parents=True, exist_ok=True)
            (data / "release").touch()
    assert [r.content[0].text for r in results] == ["alpha waited"]


async def test_a_disabled_package_leaves_and_the_server_says_so(tmp_path: Path) -> None:
    async with connected(tmp_path) as client:
        assert await client.tool_names() == {"alpha_echo", "alpha_wait"}  # the gateway is open
        await client.gateway("disable", "alpha")
        await client.next_change()
        assert await client.tool_names() == set()
        await client.gateway("enable", "alpha")
        await client.next_change()
        assert await client.tool_names() == {"alpha_echo", "alpha_wait"}
    log = (tmp_path / "stderr.log").read_text()
    assert "gateway serve: packages changed: removed alpha" in log
    assert "gateway serve: packages changed: added alpha" in log


@dataclass
class OverHttp:
    """The module's ``gateway serve --mcp --http`` process over a home holding alpha."""

    process: subprocess.Popen[bytes]
    url: str
    token: str
    home: Path
    errors: Path


@pytest.fixture(scope="module")
def over_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OverHttp]:
    """One served process for the SIGHUP test and the HTTP client's: a SIGHUP that finds no
    change changes nothing for a client, and a client is told of a change once it is applied
    (its test waits for that), so SIGHUP finds none after it either. Its exit status after
    both is asserted when the module ends."""
    base = tmp_path_factory.mktemp("over-http")
    home, workspace = base / "home", base / "ws"
    workspace.mkdir()
    install_ready(home, package(base / "alpha", "alpha"))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "HOME")}
    env["GATEWAY_HOME"] = str(home)
    token = create_token(env, "t")  # in this process: a fixture outside any event loop
    errors = base / "stderr.log"
    process, url = _start(env, workspace, errors)
    try:
        yield OverHttp(process, url, token, home, errors)
    finally:
        assert terminate(process, 30) == 0


def test_sighup_applies_the_store_as_it_is(over_http: OverHttp) -> None:
    over_http.process.send_signal(signal.SIGHUP)
    with anyio.from_thread.start_blocking_portal() as portal:
        portal.call(_said, over_http.errors, "gateway serve: SIGHUP: no package changed")
    assert over_http.process.poll() is None  # it goes on serving


async def _said(errors: Path, line: str) -> None:
    with anyio.fail_after(30):
        while line not in errors.read_text():
            await anyio.sleep(0.05)


def test_an_http_client_is_told_of_a_package_installed_under_it(
    over_http: OverHttp, tmp_path: Path
) -> None:
    # Not an async test: the module's server is made outside an event loop; the client runs
    # in an event loop of its own.
    anyio.run(_told_of_beta, tmp_path, over_http.home, over_http.url, over_http.token,
              backend="asyncio")  # fmt: skip


class _GetStreamOpened(logging.Handler):
    """Sets ``opened`` when the SDK's client says its GET stream is up: the stream a server's
    notifications outside a request travel on. A notification sent before it is up has
    nowhere to go (the server keeps no event store), so a test that changes the package
    set first waits for it — under load the stream opened after the change was told."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.opened = anyio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "GET SSE connection established":
            self.opened.set()


@asynccontextmanager
async def _announced(url: str, token: str, changed: anyio.Event) -> AsyncIterator[ClientSession]:
    """An initialized HTTP MCP client of the served gateway, its GET stream open;
    ``changed`` is set when the server says its tools changed
    (``notifications/tools/list_changed``)."""

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            changed.set()

    logger = logging.getLogger(streamable_http_client.__module__)
    watch, level = _GetStreamOpened(), logger.level
    logger.addHandler(watch)
    logger.setLevel(logging.DEBUG)
    try:
        async with (
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token}"}, timeout=MCP_TIMEOUT
            ) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            with anyio.fail_after(30):
                await watch.opened.wait()
            yield session
    finally:
        logger.removeHandler(watch)
        logger.setLevel(level)


async def _told_of_beta(tmp_path: Path, home: Path, url: str, token: str) -> None:
    changed = anyio.Event()
    async with _announced(url, token, changed) as session:
        assert {t.name for t in (await session.list_tools()).tools} == {"alpha_echo", "alpha_wait"}
        install_ready(home, package(tmp_path / "beta", "beta"))
        with anyio.fail_after(60):
            await changed.wait()
        result = await session.call_tool("beta_echo", {})
    assert result.content[0].text == "beta here"


def _config_map(folder: Path, version: str, lockfile: str) -> None:
    """What the kubelet does for a ConfigMap volume (as for a Secret, tests/test_deploy.py):
    the file in a versioned folder, ``..data`` pointing at it, the key a link through
    ``..data``; an update writes a new folder and swaps ``..data`` atomically."""
    versioned = folder / f"..{version}"
    versioned.mkdir()
    (versioned / "gateway.lock").write_text(lockfile, encoding="utf-8")
    link = folder / "..data_tmp"
    link.symlink_to(versioned.name)
    link.replace(folder / "..data")
    if not (folder / "gateway.lock").is_symlink():
        (folder / "gateway.lock").symlink_to("..data/gateway.lock")


def test_a_new_lockfile_in_a_config_map_is_synced_and_served(tmp_path: Path) -> None:
    # Not an async test: its `gateway lock`, `sync` and `token create` run in this process
    # (tests/_cli needs a thread without an event loop); the client, in an event loop of
    # its own. The server's own sync is its child process, as in production.
    source, served, workspace = tmp_path / "admin", tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "HOME")}
    admin, replica = {**env, "GATEWAY_HOME": str(source)}, {**env, "GATEWAY_HOME": str(served)}

    def gateway(where: dict[str, str], *args: str) -> None:
        done = run_here(args, env=where, cwd=tmp_path)
        assert done.returncode == 0, done.stderr

    # Lockfiles name versions: Pi packages (a nimlet extension's folder has none).
    need_sidecar()
    install_ready(source, PI_TRACE)
    gateway(admin, "lock", "--out", str(tmp_path / "one.lock"))
    install_ready(source, PI_TICKETS)
    gateway(admin, "lock", "--out", str(tmp_path / "two.lock"))
    mounted = tmp_path / "lock"
    mounted.mkdir()
    _config_map(mounted, "v1", (tmp_path / "one.lock").read_text())
    lockfile = mounted / "gateway.lock"
    gateway(replica, "sync", "--frozen", "--accept", "--lockfile", str(lockfile))
    token = create_token(replica, "u")
    process, url = _start(replica, workspace, tmp_path / "stderr.log", "--lockfile", str(lockfile))
    try:
        names = anyio.run(_synced, tmp_path, mounted, url, token, backend="asyncio")
        assert {"trace_env", "open_ticket", "ticket_stats"} <= names
    finally:
        assert terminate(process, 30) == 0
    log = (tmp_path / "stderr.log").read_text()
    assert f"gateway serve: {lockfile} changed; syncing" in log
    assert "gateway serve: packages changed: added pi-tickets" in log


async def _synced(tmp_path: Path, mounted: Path, url: str, token: str) -> set[str]:
    """The served tools once the ConfigMap's second lockfile is announced."""
    changed = anyio.Event()
    async with _announced(url, token, changed) as session:
        assert {t.name for t in (await session.list_tools()).tools} == {"trace_env"}
        _config_map(mounted, "v2", (tmp_path / "two.lock").read_text())
        with anyio.fail_after(120):
            await changed.wait()
        return {t.name for t in (await session.list_tools()).tools}


def test_the_stores_own_readers_do_not_wake_the_watch_a_writer_does(tmp_path: Path) -> None:
    """A served gateway reads the store's fingerprint whenever its watch wakes; a read
    opens and closes the store's log for writing, and waking on that kept an idle server
    reading in a loop (~40% of a core after its first package change). Only a writer's
    events count."""
    from gateway.base import Inotify
    from gateway.host._package_set import _STORE_WRITES, _written
    from gateway.store import StateStore, package_set_fingerprint

    home = tmp_path / "home"
    install_ready(home, package(tmp_path / "alpha", "alpha"))
    inotify = Inotify()
    try:
        inotify.add(home, _STORE_WRITES)
        for _ in range(3):
            package_set_fingerprint(home)
        assert not [e for e in inotify.read() if _written(e[1], e[2])]
        with StateStore.open(home) as store:
            store.set_enabled("alpha", False)
        assert [e for e in inotify.read() if _written(e[1], e[2])]
    finally:
        inotify.close()
